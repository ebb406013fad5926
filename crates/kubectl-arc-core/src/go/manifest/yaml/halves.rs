//! A large List read as two halves at once: `kubectl get -o yaml` prints a List as
//!
//! ```yaml
//! apiVersion: v1
//! items:
//! - apiVersion: actions.github.com/v1alpha1
//!   ...
//! - ...
//! kind: List
//! ```
//!
//! and one scanner over all of it is the pace of the reading (it runs about twice the
//! instructions the building does). So the text is cut at an item's `- ` line in column 0, the
//! head is read as it is (scanned beside its building), and the rest, behind `items:\n`, on a
//! thread of its own; the two readings are then joined into the document the whole text is.
//!
//! The joining is exact or not made. Up to the cut, the head's events are the whole text's:
//! a YAML scanner reads on without looking back, and at a line start in column 0 a `- ` line
//! ends every node but the sequence it continues. After the cut, the rest's events are the whole
//! text's when the parser stood where `items:\n` leaves it: in the root mapping, after its key
//! `items`, in a block sequence in column 0 (no anchor on it, no tag directive in force). What
//! differs is counted per document and is checked for after both readings: an alias (go-yaml's
//! aliasing budget counts the whole document), a merge key into the root, a refusal (a deferred
//! one keeps every later item out of its parts), NEL, LS or PS, a second document after the cut,
//! a root key given on both sides (a duplicate in the whole). Any of them, or an error on either
//! side, and [`read`] answers `None`: the caller reads the whole text, which names the error
//! exactly as it always has.

use serde_json::Value;

use super::{MAX_NODES, Reader, StructureStyle, YamlDocument, read_reader};

/// From this many bytes on, a List is read as two halves (when the machine has a second core).
pub(super) const FROM: usize = 1024 * 1024;

/// What the rest is read behind: the key of the sequence it continues.
const ITEMS: &str = "items:\n";

/// `text` read as two halves, cut at the first item line (`- ` in column 0) from byte `from`
/// on, when that reads exactly what reading it whole reads; `None` otherwise (nothing is
/// kept). The head is scanned beside its building when it holds `beside_from` bytes.
pub(super) fn read(
    text: &str,
    from: usize,
    beside_from: usize,
    parts: bool,
) -> Option<Vec<YamlDocument>> {
    let from = (from..=text.len()).find(|&i| text.is_char_boundary(i))?;
    let cut = from + text[from..].find("\n- ")? + 1;
    let (head, rest) = text.split_at(cut);
    // A directive (`%TAG`) would hold in the head's document and not in the rest's.
    if head.starts_with('%') || head.contains("\n%") {
        return None;
    }
    let rest = format!("{ITEMS}{rest}");
    let (head, rest) = std::thread::scope(|scope| {
        let rest = std::thread::Builder::new()
            .name("yaml-half".into())
            .spawn_scoped(scope, || {
                read_reader(&rest, usize::MAX, parts).map(Half::of)
            })
            .ok()?;
        let head = read_reader(head, beside_from, parts).map(Half::of);
        match rest.join() {
            Ok(rest) => Some((head.ok()?, rest.ok()?)),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })?;
    join(head, rest)
}

/// A half's documents, and what its reader saw of the last one.
struct Half {
    documents: Vec<YamlDocument>,
    /// The last document: its alias nodes, whether a merge key wrote into its root, and how its
    /// root's `items` started.
    alias_nodes: usize,
    root_merged: bool,
    root_items: Option<(StructureStyle, bool, usize)>,
    /// NEL, LS or PS anywhere in the half.
    breaks: bool,
    file_nodes: usize,
}

impl Half {
    fn of(reader: Reader<'_>) -> Half {
        Half {
            alias_nodes: reader.alias_nodes,
            root_merged: reader.root_merged,
            root_items: reader.root_items,
            breaks: !reader.breaks.is_empty(),
            file_nodes: reader.file_nodes,
            documents: reader.documents,
        }
    }

    /// Whether the half read nothing that a reading of the whole would see otherwise.
    fn plain(&self) -> bool {
        self.alias_nodes == 0 && !self.root_merged && !self.breaks
    }
}

/// The head's last document and the rest's only one joined into the whole's: the rest's items
/// after the head's (their indices, those read into parts and the spellings under them moved on
/// by the head's count), then the rest's root keys after the head's.
fn join(head: Half, rest: Half) -> Option<Vec<YamlDocument>> {
    if !head.plain() || !rest.plain() || head.file_nodes + rest.file_nodes > MAX_NODES {
        return None;
    }
    // The head ends in its root's `items`, a block sequence in column 0 with no anchor: the one
    // the rest's item lines continue.
    if !matches!(head.root_items, Some((StructureStyle::Block, true, 0))) {
        return None;
    }
    let mut documents = head.documents;
    let mut tail = rest.documents;
    let (last, tail) = (
        documents.last_mut()?,
        tail.pop().filter(|_| tail.is_empty())?,
    );
    if !last.refusals.is_empty() || !tail.refusals.is_empty() {
        return None;
    }
    let (Value::Object(whole), Value::Object(mut after)) = (&mut last.value, tail.value) else {
        return None;
    };
    if whole.iter().next_back()?.0 != "items" {
        return None;
    }
    let Some(Value::Array(mut more)) = after.shift_remove("items") else {
        return None;
    };
    if after.keys().any(|key| whole.contains_key(key)) {
        return None;
    }
    let Some(Value::Array(items)) = whole.get_mut("items") else {
        return None;
    };
    let count = items.len();
    items.append(&mut more);
    whole.extend(after);
    let moved = tail
        .items_read
        .into_iter()
        .map(|(i, parts)| (i + count, parts));
    last.items_read.extend(moved);
    for mut spelling in tail.spellings {
        if let Some(rest) = spelling.pointer.strip_prefix("/items/") {
            let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let index: usize = rest[..digits].parse().ok()?;
            spelling.pointer = format!("/items/{}{}", index + count, &rest[digits..]);
        }
        last.spellings.push(spelling);
    }
    Some(documents)
}

/// Reads `text` in halves at each cut [`read`] may make (the byte before each item line), into
/// parts and whole, and checks each join against the whole reading: the number of cuts joined.
/// Panics naming the cut where a join reads otherwise. For the tests and the `manifest_parse`
/// fuzz target.
pub(crate) fn check_every_cut(text: &str, beside_from: usize) -> usize {
    let mut joined = 0;
    for parts in [false, true] {
        let whole = super::read_with(text, usize::MAX, parts);
        let item_lines = text.match_indices("\n- ").map(|(i, _)| i);
        let inside_characters = (text.char_indices())
            .filter(|(_, c)| c.len_utf8() > 1)
            .map(|(i, _)| i + 1);
        for from in item_lines.chain(inside_characters) {
            if let Some(documents) = read(text, from, beside_from, parts) {
                joined += 1;
                assert!(
                    whole.as_ref() == Ok(&documents),
                    "cut at {from} (parts: {parts}): {documents:?}, where the whole reads {whole:?}"
                );
            }
        }
    }
    joined
}

#[cfg(test)]
mod tests {
    use super::super::read_with;
    use super::*;
    use crate::written::Spelling;

    /// Whether some cut of `text` is read in halves, checking each that is against the whole
    /// reading, scanned beside or in line.
    fn halves_agree(text: &str) -> bool {
        let joined = check_every_cut(text, usize::MAX);
        assert_eq!(check_every_cut(text, 0), joined, "{text}");
        joined > 0
    }

    /// The cuts at item lines.
    fn cuts(text: &str) -> Vec<usize> {
        text.match_indices("\n- ").map(|(i, _)| i).collect()
    }

    /// A List as `kubectl get -o yaml` prints it, its items spelled in ways go-yaml reads
    /// otherwise (`yes`, `0x1f`, `1.0`, `~`), with block scalars, nested sequences, comments and
    /// blank lines between them.
    fn dump(items: usize) -> String {
        let mut text = String::from("apiVersion: v1\nitems:\n");
        for i in 0..items {
            text.push_str(&format!(
                "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: m{i}\n    annotations: {{note: \"é ✓\"}}\n    labels: {{a: yes, b: 0x1{i}}}\n  data:\n    k: [1.0, ~, \"x\"]\n    l: |\n      text {i}\n\n    s:\n    - - {i}\n      - b\n    - c\n# between\n\n"
            ));
        }
        text.push_str("kind: List\nmetadata:\n  resourceVersion: \"\"\n");
        text
    }

    #[test]
    fn a_list_read_in_halves_is_the_list_read_whole() {
        for items in [2, 3, 5] {
            let text = dump(items);
            assert!(halves_agree(&text), "{text}");
            // Every cut but the first item's (the head holds no item) is joined.
            let joined = cuts(&text)
                .into_iter()
                .filter(|&from| {
                    text.get(from + 3..)
                        .is_some_and(|t| t.starts_with("apiVersion"))
                        && read(&text, from, usize::MAX, true).is_some()
                })
                .count();
            assert_eq!(joined, items - 1, "{text}");
            // From inside a character, the cut is the next item line's.
            let inside = text.find('é').map(|i| i + 1);
            let read_inside = inside.and_then(|from| read(&text, from, usize::MAX, true));
            assert!(read_inside.is_some(), "{text}");
            let bare = text.split("kind: List").next().unwrap_or_default();
            assert!(halves_agree(bare), "{bare}");
            // Other documents before it.
            let after = format!("a: 1\n---\nb: [x]\n---\n{text}");
            assert!(halves_agree(&after), "{after}");
        }
        for text in [
            "items: !!seq\n- a\n- b\n",
            "items:\n- a\n- b\n--- ~\n",
            "? items\n:\n- a\n- b\n",
            "items:\n- &a {x: 1}\n- b\n",
            "items:\n- a\n- - b\n  - c\n- |\n  d\n\n- e\n",
        ] {
            assert!(halves_agree(text), "{text}");
        }
    }

    /// A List large enough for [`super::super::read`] to read in halves (on a machine of two
    /// cores or more) reads what reading it whole reads.
    #[test]
    fn a_large_list_is_read_as_the_whole() {
        let mut text = dump(5000);
        assert!(text.len() >= FROM, "{} bytes", text.len());
        let whole = read_with(&text, usize::MAX, true).expect("reads");
        assert_eq!(whole[0].items_read.len(), 5000);
        assert_eq!(
            read(&text, text.len() / 2, usize::MAX, true).as_ref(),
            Some(&whole)
        );
        assert!(super::super::read(&text, true) == Ok(whole));
        // A spelling after the cut is named at its index in the whole List.
        text = text.replace("    name: m4999\n", "    name: m4999\n    r: 1.0\n");
        let halves = read(&text, text.len() / 2, usize::MAX, true).expect("joined");
        let named = |s: &Spelling| s.pointer == "/items/4999/metadata/r";
        assert!(halves[0].spellings.iter().any(named));
    }

    /// The same on generated Lists (a fixed seed): root keys before and after the items, items
    /// of scalars go-yaml spells otherwise or kubectl refuses, anchors and aliases, merge keys,
    /// nested sequences and block scalars.
    #[test]
    fn generated_lists_read_in_halves_are_the_lists_read_whole() {
        let mut next = crate::xorshift(0x9e37_79b9_7f4a_7c15u64);
        const SCALARS: [&str; 10] = [
            "1", "1.0", "yes", "~", "a", "\"q\"", "0x1f", ".inf", "*a", "&a b",
        ];
        const ROOT: [&str; 5] = [
            "apiVersion: v1\n",
            "kind: List\n",
            "x: *a\n",
            "<<: {y: 1}\n",
            "z: .nan\n",
        ];
        let (mut joined, mut texts) = (0, 0);
        for _ in 0..400 {
            let mut text = String::new();
            for _ in 0..next(3) {
                text.push_str(ROOT[next(3)]);
            }
            text.push_str("items:\n");
            for i in 0..2 + next(5) {
                match next(8) {
                    0 => text.push_str(&format!("- {}\n", SCALARS[next(SCALARS.len())])),
                    1 => text.push_str("- - a\n  - |\n    b\n\n"),
                    _ => {
                        text.push_str(&format!("- kind: K{i}\n"));
                        for k in 0..next(4) {
                            let value = SCALARS[next(SCALARS.len())];
                            match next(4) {
                                0 => text.push_str(&format!("  s{k}:\n  - {value}\n")),
                                1 => text.push_str(&format!("  <<: {{m{k}: {value}}}\n")),
                                _ => text.push_str(&format!("  k{k}: {value}\n")),
                            }
                        }
                    }
                }
            }
            for _ in 0..next(3) {
                text.push_str(ROOT[next(ROOT.len())]);
            }
            texts += 1;
            joined += usize::from(halves_agree(&text));
        }
        assert!(joined > texts / 10, "only {joined} of {texts} joined");
    }

    /// What the rest's reading would see otherwise is never joined (and the whole text reads as
    /// it always has): each case's halves read without an error, and most read otherwise than
    /// the whole.
    #[test]
    fn what_the_halves_would_read_otherwise_is_read_whole() {
        for (case, text) in [
            // The whole is an error: indented items, then one in column 0; flow items.
            ("indented", "items:\n  - a: 1\n  - b: 2\n- c: 3\n"),
            ("flow", "items: [a]\n- b\n"),
            // An anchored sequence's items are never read into parts.
            ("anchored", "kind: List\nitems: &x\n- a: 1\n- b: 2\n"),
            // go-yaml's aliasing budget counts the whole document.
            ("alias", "items:\n- &a {x: 1}\n- *a\n"),
            // A duplicate key in the whole.
            ("duplicate", "kind: List\nitems:\n- a\n- b\nkind: List\n"),
            ("merge", "<<: {kind: X}\nitems:\n- a\n- b\nkind: List\n"),
            ("merge after", "items:\n- a\n- b\n<<: {items: [c]}\n"),
            // A deferred refusal keeps the later items out of their parts.
            ("refusal", "kind: List\nitems:\n- a: .inf\n- kind: B\n"),
            (
                "refusal after",
                "kind: List\nitems:\n- a: 1\n- kind: B\n  c: .inf\n",
            ),
            (
                "directive",
                "%TAG ! tag:yaml.org,2002:\n---\nitems:\n- !int \"12\"\n- !int \"13\"\n",
            ),
            ("document after", "items:\n- a\n- b\n---\nitems:\n- c\n"),
            ("line break", "items:\n- a\n- b\u{85}c\n"),
            ("error after", "items:\n- a\n- b: [\n"),
        ] {
            assert!(!halves_agree(text), "{case}: joined\n{text}");
        }
    }
}

//! One output path for every command's report: `-o json|yaml|name|jsonpath=...|custom-columns=...`
//! are rendered here from the report's JSON form, the same way for diff, status, bump and
//! migrate; each command keeps only its own human format (the text diff, the tables).
//!
//! Follows kubectl's printers (k8s.io/cli-runtime `pkg/printers`): `-o name` prints
//! `<resource>.<group>/<name>` per item; `-o jsonpath=TEMPLATE` is kubectl's template syntax
//! (`{.items[*].name}`, `{range .items[*]}...{end}`, string literals `{"\n"}`), evaluated on the
//! whole report, the expressions themselves by `serde_json_path` (RFC 9535 JSONPath);
//! `-o custom-columns=HEADER:EXPR,...` evaluates each expression on each item, `<none>` where it
//! finds nothing; `--no-headers` drops the header line of tables.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::Value;

/// The formats of a command whose own output is a table (bump, migrate), beside `table`.
pub(crate) const TABLE_FORMATS: &[&str] = &["json", "yaml", "name", "jsonpath", "custom-columns"];

/// An `-o` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Output {
    /// The command's own human format (text diff, table).
    Default,
    /// The table with more columns (`-o wide`).
    Wide,
    Json,
    Yaml,
    /// `<resource>.<group>/<name>` per item.
    Name,
    /// GitHub Actions workflow commands (diff only).
    Github,
    /// `-o jsonpath=TEMPLATE`.
    JsonPath(String),
    /// `-o custom-columns=HEADER:EXPR,...`: (header, expression).
    CustomColumns(Vec<(String, String)>),
}

impl Output {
    /// Parse an `-o` value among the `allowed` format names of a command (`"default"` stands for
    /// the names given in `default_names`, e.g. `text` or `table`).
    pub(crate) fn parse(
        s: &str,
        allowed: &[&str],
        default_names: &[&str],
    ) -> Result<Output, String> {
        let (name, arg) = match s.split_once('=') {
            Some((n, a)) => (n, Some(a)),
            None => (s, None),
        };
        let known = |n: &str| allowed.contains(&n) || default_names.contains(&n);
        if !known(name) {
            let mut all: Vec<&str> = default_names.to_vec();
            all.extend(allowed);
            return Err(format!(
                "unknown output format {s:?}: use one of {}",
                all.iter()
                    .map(|n| match *n {
                        "jsonpath" | "custom-columns" => format!("{n}=..."),
                        n => n.to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        let out = match (name, arg) {
            (n, None) if default_names.contains(&n) => Output::Default,
            ("wide", None) => Output::Wide,
            ("json", None) => Output::Json,
            ("yaml", None) => Output::Yaml,
            ("name", None) => Output::Name,
            ("github", None) => Output::Github,
            ("jsonpath", Some(t)) => {
                check_template(t)?;
                Output::JsonPath(t.to_string())
            }
            ("custom-columns", Some(spec)) => Output::CustomColumns(columns(spec)?),
            ("jsonpath" | "custom-columns", None) => {
                return Err(format!("-o {name} needs a value: -o {name}=..."));
            }
            (n, Some(_)) => return Err(format!("-o {n} takes no value")),
            (n, None) => return Err(format!("-o {n} is not available here")),
        };
        Ok(out)
    }

    /// Whether this is the command's own human format (or its wide form).
    pub(crate) fn is_human(&self) -> bool {
        matches!(self, Output::Default | Output::Wide)
    }
}

/// The `-o` parser of one command: validates with [`Output::parse`] and offers the format names
/// to help and completion (`jsonpath=` and `custom-columns=` with their `=`).
#[derive(Clone)]
pub(crate) struct OutputParser {
    pub(crate) formats: &'static [&'static str],
    pub(crate) defaults: &'static [&'static str],
}

impl clap::builder::TypedValueParser for OutputParser {
    type Value = Output;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Output, clap::Error> {
        let text = value.to_str().ok_or_else(|| {
            clap::Error::raw(clap::error::ErrorKind::InvalidUtf8, "-o: not UTF-8\n").with_cmd(cmd)
        })?;
        Output::parse(text, self.formats, self.defaults).map_err(|e| {
            let name = arg.map_or("-o".to_string(), |a| format!("--{}", a.get_id()));
            clap::Error::raw(
                clap::error::ErrorKind::InvalidValue,
                format!("invalid value '{text}' for '{name}': {e}\n"),
            )
            .with_cmd(cmd)
        })
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(self.defaults.iter().chain(self.formats).map(
            |n| {
                match *n {
                    "jsonpath" => clap::builder::PossibleValue::new("jsonpath=")
                        .help("kubectl's JSONPath template, e.g. jsonpath={.items[*].name}"),
                    "custom-columns" => clap::builder::PossibleValue::new("custom-columns=")
                        .help("columns HEADER:EXPRESSION,..., e.g. custom-columns=NAME:.name"),
                    "github" => clap::builder::PossibleValue::new("github")
                        .help("GitHub Actions workflow commands: pull-request annotations"),
                    n => clap::builder::PossibleValue::new(n),
                }
            },
        )))
    }
}

/// `HEADER:EXPR,...` as kubectl reads it.
fn columns(spec: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for part in spec.split(',') {
        let (header, expr) = part.split_once(':').ok_or_else(|| {
            format!("-o custom-columns: {part:?} is not HEADER:EXPRESSION (for example NAME:.name)")
        })?;
        if header.is_empty() || expr.is_empty() {
            return Err(format!(
                "-o custom-columns: {part:?} needs both a header and an expression"
            ));
        }
        let expr = expr
            .trim_start_matches('{')
            .trim_end_matches('}')
            .to_string();
        path(&expr)?;
        out.push((header.to_string(), expr));
    }
    Ok(out)
}

/// One piece of a kubectl JSONPath template.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Expr(String),
    Range(String),
    End,
}

/// Split a template into text and `{...}` expressions.
fn pieces(template: &str) -> Result<Vec<Piece>, String> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        if open > 0 {
            out.push(Piece::Text(rest[..open].to_string()));
        }
        let after = &rest[open + 1..];
        // A string literal may hold a `}`: find the closing brace outside quotes.
        let mut in_string = false;
        let mut escaped = false;
        let mut close = None;
        for (i, c) in after.char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' if in_string => escaped = true,
                '"' => in_string = !in_string,
                '}' if !in_string => {
                    close = Some(i);
                    break;
                }
                _ => {}
            }
        }
        let close = close.ok_or_else(|| format!("-o jsonpath: unclosed {{ in {template:?}"))?;
        let expr = after[..close].trim();
        out.push(if expr == "end" {
            Piece::End
        } else if let Some(e) = expr.strip_prefix("range ") {
            Piece::Range(e.trim().to_string())
        } else {
            Piece::Expr(expr.to_string())
        });
        rest = &after[close + 1..];
    }
    if !rest.is_empty() {
        out.push(Piece::Text(rest.to_string()));
    }
    Ok(out)
}

/// A kubectl expression as an RFC 9535 path: `.a`, `[0]`, `@.a` and `$.a` are all rooted at the
/// current node.
fn path(expr: &str) -> Result<serde_json_path::JsonPath, String> {
    let e = expr.trim();
    let rooted = if let Some(rest) = e.strip_prefix('@') {
        format!("${rest}")
    } else if e.starts_with('$') {
        e.to_string()
    } else if e.starts_with('.') || e.starts_with('[') {
        format!("${e}")
    } else {
        format!("$.{e}")
    };
    serde_json_path::JsonPath::parse(&rooted)
        .map_err(|err| format!("-o jsonpath: {expr:?} is not a JSONPath expression: {err}"))
}

fn check_template(template: &str) -> Result<(), String> {
    let mut depth = 0usize;
    for p in pieces(template)? {
        match p {
            Piece::Expr(e) if e.starts_with('"') => {
                serde_json::from_str::<String>(&e)
                    .map_err(|err| format!("-o jsonpath: {e} is not a string literal: {err}"))?;
            }
            Piece::Expr(e) if e.is_empty() => {
                return Err("-o jsonpath: an empty expression {}".into());
            }
            Piece::Expr(e) => {
                path(&e)?;
            }
            Piece::Range(e) => {
                path(&e)?;
                depth += 1;
            }
            Piece::End => {
                depth = depth
                    .checked_sub(1)
                    .ok_or("-o jsonpath: {end} without {range ...}")?;
            }
            Piece::Text(_) => {}
        }
    }
    if depth > 0 {
        return Err("-o jsonpath: {range ...} without {end}".into());
    }
    Ok(())
}

/// How kubectl prints one JSONPath result: strings as they are, anything else as JSON.
fn print_value(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Evaluate a template on `data`.
fn render_template(template: &str, data: &Value) -> Result<String, String> {
    let pieces = pieces(template)?;
    let mut out = String::new();
    render_pieces(&pieces, data, &mut out)?;
    Ok(out)
}

/// Render `pieces` against `current`; returns how many pieces were consumed (a `{range}` consumes
/// up to its `{end}`).
fn render_pieces(pieces: &[Piece], current: &Value, out: &mut String) -> Result<usize, String> {
    let mut i = 0;
    while i < pieces.len() {
        match &pieces[i] {
            Piece::Text(t) => out.push_str(t),
            Piece::Expr(e) if e.starts_with('"') => {
                out.push_str(&serde_json::from_str::<String>(e).map_err(|x| x.to_string())?)
            }
            Piece::Expr(e) => {
                let found = path(e)?.query(current).all();
                let texts: Vec<String> = found.into_iter().map(print_value).collect();
                out.push_str(&texts.join(" "));
            }
            Piece::Range(e) => {
                let body = &pieces[i + 1..];
                let items = path(e)?.query(current).all();
                // The body's length is found by rendering it once against each item (or against
                // nothing, to find its end when there are no items).
                let mut consumed = None;
                for item in &items {
                    consumed = Some(render_pieces(body, item, out)?);
                }
                let consumed = match consumed {
                    Some(c) => c,
                    None => render_pieces(body, &Value::Null, &mut String::new())?,
                };
                i += consumed + 1;
            }
            Piece::End => return Ok(i + 1),
        }
        i += 1;
    }
    Ok(i)
}

/// YAML as kubectl writes it (go-yaml): a single-line string stays on its line however long
/// (serde-saphyr folds one beyond 80 characters into `>` by default); a multi-line one is a
/// literal block (`|`).
pub(crate) fn to_yaml<T: Serialize>(value: &T) -> Result<String, serde_saphyr::SerializeError> {
    serde_saphyr::to_string_with_options(
        value,
        serde_saphyr::ser_options! { folded_wrap_chars: usize::MAX },
    )
}

/// Write a report in one of the formats that all commands share. Returns `false` for the
/// command's own human formats (and `github`), which the command renders itself.
///
/// `resource` is the `<resource>.<group>` of `-o name` (e.g.
/// `ephemeralrunnerset.actions.github.com`); items are the report's `items`.
pub(crate) fn structured<R: Serialize>(
    report: &R,
    output: &Output,
    resource: &str,
    no_headers: bool,
    out: &mut dyn Write,
) -> io::Result<bool> {
    let data = || serde_json::to_value(report).map_err(io::Error::other);
    match output {
        Output::Default | Output::Wide | Output::Github => return Ok(false),
        Output::Json => {
            serde_json::to_writer_pretty(&mut *out, report).map_err(io::Error::other)?;
            writeln!(out)?;
        }
        Output::Yaml => {
            let text = to_yaml(report).map_err(io::Error::other)?;
            write!(out, "{text}")?;
        }
        Output::Name => {
            for item in items(&data()?) {
                if let Some(name) = item.get("name").and_then(Value::as_str) {
                    writeln!(out, "{resource}/{name}")?;
                }
            }
        }
        Output::JsonPath(template) => {
            // As kubectl: the template's text and nothing more (no newline of its own).
            let text = render_template(template, &data()?).map_err(io::Error::other)?;
            write!(out, "{text}")?;
        }
        Output::CustomColumns(columns) => {
            let data = data()?;
            let mut rows: Vec<Vec<String>> = Vec::new();
            if !no_headers {
                rows.push(columns.iter().map(|(h, _)| h.clone()).collect());
            }
            for item in items(&data) {
                let mut row = Vec::new();
                for (_, expr) in columns {
                    let found = path(expr).map_err(io::Error::other)?.query(item).all();
                    row.push(if found.is_empty() {
                        "<none>".to_string()
                    } else {
                        found
                            .into_iter()
                            .map(print_value)
                            .collect::<Vec<_>>()
                            .join(",")
                    });
                }
                rows.push(row);
            }
            write_aligned(&rows, out)?;
        }
    }
    Ok(true)
}

fn items(data: &Value) -> Vec<&Value> {
    match data.get("items") {
        Some(Value::Array(items)) => items.iter().collect(),
        _ => vec![data],
    }
}

/// Columns separated by three spaces, as kubectl's tables.
pub(crate) fn write_aligned(rows: &[Vec<String>], out: &mut dyn Write) -> io::Result<()> {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|t| t.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in rows {
        let mut line = String::new();
        for (c, text) in row.iter().enumerate() {
            line.push_str(text);
            if c + 1 < row.len() {
                line.push_str(&" ".repeat(widths[c] - text.chars().count() + 3));
            }
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn report() -> Value {
        json!({"kind": "StatusReport", "items": [
            {"namespace": "a", "name": "x", "state": "Synced", "runners": {"idle": 1}},
            {"namespace": "b", "name": "y", "state": "Pending", "runners": {"idle": 0}},
        ]})
    }

    fn emit(output: &str, no_headers: bool) -> String {
        let all = ["json", "yaml", "name", "wide", "jsonpath", "custom-columns"];
        let o = Output::parse(output, &all, &["table"]).unwrap();
        let mut out = Vec::new();
        assert!(
            structured(
                &report(),
                &o,
                "ephemeralrunnerset.actions.github.com",
                no_headers,
                &mut out
            )
            .unwrap()
        );
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn name_jsonpath_and_custom_columns_like_kubectl() {
        assert_eq!(
            emit("name", false),
            "ephemeralrunnerset.actions.github.com/x\nephemeralrunnerset.actions.github.com/y\n"
        );
        assert_eq!(emit("jsonpath={.items[*].name}", false), "x y");
        assert_eq!(
            emit(
                r#"jsonpath={range .items[*]}{.namespace}/{.name}={.state}{"\n"}{end}"#,
                false
            ),
            "a/x=Synced\nb/y=Pending\n"
        );
        assert_eq!(
            emit("jsonpath={.items[?(@.state==\"Pending\")].name}", false),
            "y"
        );
        assert_eq!(
            emit(
                "custom-columns=NAME:.name,IDLE:.runners.idle,GONE:.missing",
                false
            ),
            "NAME   IDLE   GONE\nx      1      <none>\ny      0      <none>\n"
        );
        assert_eq!(emit("custom-columns=NAME:.name", true), "x\ny\n");
    }

    #[test]
    fn bad_formats_say_what_is_wrong() {
        let all = ["json", "jsonpath", "custom-columns"];
        let e = |s: &str| Output::parse(s, &all, &["table"]).unwrap_err();
        assert!(e("xml").contains("use one of table, json, jsonpath=..., custom-columns=..."));
        assert!(e("jsonpath").contains("needs a value"));
        assert!(e("jsonpath={.items[}").contains("not a JSONPath expression"));
        assert!(e("jsonpath={.a").contains("unclosed"));
        assert!(e("custom-columns=NAME").contains("is not HEADER:EXPRESSION"));
        assert!(e("json=1").contains("takes no value"));
        assert_eq!(
            Output::parse("table", &all, &["table"]),
            Ok(Output::Default)
        );
    }
}

//! ARC's reading of `githubConfigUrl`: Go's `net/url.Parse`, then ARC's
//! `actions.ParseGitHubConfigFromURL` (github/actions/actions.go), which `applyGitHubURLLabels` calls
//! from `newEphemeralRunnerSet`. When it fails, ARC logs the error and never builds (so never
//! updates) the EphemeralRunnerSet.
//!
//! Pure core. Only the error paths matter to the runner spec (the scope becomes labels, which do not
//! enter it), but they must be Go's exactly, messages included: [`github_config_error`] returns
//! the message ARC logs. Go strings are bytes, so the URL's parts are bytes here too (`%ff` in a
//! path is a lone byte).

/// The encoding modes of net/url's `shouldEscape`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Path,
    Host,
    Zone,
    UserPassword,
    Fragment,
}

/// net/url `shouldEscape` for the modes `Parse` and `String` use.
fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if matches!(mode, Mode::Host | Mode::Zone)
        && matches!(
            c,
            b'!' | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'['
                | b']'
                | b'<'
                | b'>'
                | b'"'
        )
    {
        return false;
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => return false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => match mode {
            Mode::Path => return c == b'?',
            Mode::UserPassword => return matches!(c, b'@' | b'/' | b'?' | b':'),
            Mode::Fragment => return false,
            // Host and zone reach here only for '/', '?' and '@'.
            Mode::Host | Mode::Zone => {}
        },
        _ => {}
    }
    if mode == Mode::Fragment && matches!(c, b'!' | b'(' | b')' | b'*') {
        return false;
    }
    true
}

fn unhex(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => c - b'A' + 10,
    }
}

/// Why a URL does not parse, worded as Go words it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlError(String);

impl std::fmt::Display for UrlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn err(msg: impl Into<String>) -> UrlError {
    UrlError(msg.into())
}

/// net/url `unescape` (never in query mode here, so '+' stays '+').
fn unescape(s: &[u8], mode: Mode) -> Result<Vec<u8>, UrlError> {
    let mut i = 0;
    let mut n = 0;
    while i < s.len() {
        match s[i] {
            b'%' => {
                n += 1;
                if i + 2 >= s.len()
                    || !s[i + 1].is_ascii_hexdigit()
                    || !s[i + 2].is_ascii_hexdigit()
                {
                    let bad = &s[i..(i + 3).min(s.len())];
                    return Err(err(format!("invalid URL escape {}", go_quote(bad))));
                }
                let three = &s[i..i + 3];
                if mode == Mode::Host && unhex(s[i + 1]) < 8 && three != b"%25" {
                    return Err(err(format!("invalid URL escape {}", go_quote(three))));
                }
                if mode == Mode::Zone {
                    let v = (unhex(s[i + 1]) << 4) | unhex(s[i + 2]);
                    if three != b"%25" && v != b' ' && should_escape(v, Mode::Host) {
                        return Err(err(format!("invalid URL escape {}", go_quote(three))));
                    }
                }
                i += 3;
            }
            c => {
                if matches!(mode, Mode::Host | Mode::Zone) && c < 0x80 && should_escape(c, mode) {
                    return Err(err(format!(
                        "invalid character {} in host name",
                        go_quote(&s[i..i + 1])
                    )));
                }
                i += 1;
            }
        }
    }
    if n == 0 {
        return Ok(s.to_vec());
    }
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'%' {
            out.push((unhex(s[i + 1]) << 4) | unhex(s[i + 2]));
            i += 3;
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    Ok(out)
}

/// net/url `escape` (never in query mode here).
fn escape(s: &[u8], mode: Mode) -> Vec<u8> {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = Vec::with_capacity(s.len());
    for &c in s {
        if should_escape(c, mode) {
            out.extend_from_slice(&[b'%', HEX[(c >> 4) as usize], HEX[(c & 15) as usize]]);
        } else {
            out.push(c);
        }
    }
    out
}

/// A parsed URL: the fields of Go's `url.URL` that `Parse` fills and `String` reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GoUrl {
    pub scheme: Vec<u8>,
    pub opaque: Vec<u8>,
    /// Username, and the password when one was given.
    pub user: Option<(Vec<u8>, Option<Vec<u8>>)>,
    pub host: Vec<u8>,
    pub path: Vec<u8>,
    pub raw_path: Vec<u8>,
    pub fragment: Vec<u8>,
    pub raw_fragment: Vec<u8>,
    pub raw_query: Vec<u8>,
    pub force_query: bool,
    pub omit_host: bool,
}

fn find(s: &[u8], c: u8) -> Option<usize> {
    s.iter().position(|&b| b == c)
}

fn rfind(s: &[u8], c: u8) -> Option<usize> {
    s.iter().rposition(|&b| b == c)
}

/// `url.Parse`: the fragment is cut off first; an error is Go's `*url.Error`, `parse "URL": why`.
pub fn parse(raw: &str) -> Result<GoUrl, UrlError> {
    let raw = raw.as_bytes();
    let (u, frag) = match find(raw, b'#') {
        Some(i) => (&raw[..i], &raw[i + 1..]),
        None => (raw, &raw[raw.len()..]),
    };
    let mut url =
        parse_without_fragment(u).map_err(|e| err(format!("parse {}: {e}", go_quote(u))))?;
    if frag.is_empty() {
        return Ok(url);
    }
    let fragment =
        unescape(frag, Mode::Fragment).map_err(|e| err(format!("parse {}: {e}", go_quote(raw))))?;
    url.raw_fragment = if escape(&fragment, Mode::Fragment) == frag {
        Vec::new()
    } else {
        frag.to_vec()
    };
    url.fragment = fragment;
    Ok(url)
}

/// net/url `getScheme`: `[a-zA-Z][a-zA-Z0-9+.-]*:`, else no scheme.
fn get_scheme(raw: &[u8]) -> Result<(&[u8], &[u8]), UrlError> {
    for (i, &c) in raw.iter().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return Err(err("missing protocol scheme")),
            b':' => return Ok((&raw[..i], &raw[i + 1..])),
            _ => return Ok((&raw[..0], raw)),
        }
    }
    Ok((&raw[..0], raw))
}

/// net/url `parse(rawURL, viaRequest=false)`.
fn parse_without_fragment(raw: &[u8]) -> Result<GoUrl, UrlError> {
    if raw.iter().any(|&b| b < b' ' || b == 0x7f) {
        return Err(err("net/url: invalid control character in URL"));
    }
    let mut url = GoUrl::default();
    if raw == b"*" {
        url.path = b"*".to_vec();
        return Ok(url);
    }
    let (scheme, rest) = get_scheme(raw)?;
    url.scheme = scheme.to_ascii_lowercase();
    let mut rest = rest;
    if rest.last() == Some(&b'?') && rest.iter().filter(|&&b| b == b'?').count() == 1 {
        url.force_query = true;
        rest = &rest[..rest.len() - 1];
    } else if let Some(i) = find(rest, b'?') {
        url.raw_query = rest[i + 1..].to_vec();
        rest = &rest[..i];
    }
    if !rest.starts_with(b"/") {
        if !url.scheme.is_empty() {
            // A rootless path after a scheme is opaque (RFC 3986).
            url.opaque = rest.to_vec();
            return Ok(url);
        }
        let segment = &rest[..find(rest, b'/').unwrap_or(rest.len())];
        if segment.contains(&b':') {
            return Err(err("first path segment in URL cannot contain colon"));
        }
    }
    let mut path = rest;
    if (!url.scheme.is_empty() || !rest.starts_with(b"///")) && rest.starts_with(b"//") {
        let mut authority = &rest[2..];
        path = &rest[rest.len()..];
        if let Some(i) = find(authority, b'/') {
            path = &authority[i..];
            authority = &authority[..i];
        }
        let (user, host) = parse_authority(&url.scheme, authority)?;
        url.user = user;
        url.host = host;
    } else if !url.scheme.is_empty() && rest.starts_with(b"/") {
        url.omit_host = true;
    }
    let unescaped = unescape(path, Mode::Path)?;
    url.raw_path = if escape(&unescaped, Mode::Path) == path {
        Vec::new()
    } else {
        path.to_vec()
    };
    url.path = unescaped;
    Ok(url)
}

type User = Option<(Vec<u8>, Option<Vec<u8>>)>;

fn parse_authority(scheme: &[u8], authority: &[u8]) -> Result<(User, Vec<u8>), UrlError> {
    let at = rfind(authority, b'@');
    let host = parse_host(scheme, &authority[at.map_or(0, |i| i + 1)..])?;
    let Some(at) = at else {
        return Ok((None, host));
    };
    let userinfo = &authority[..at];
    if !valid_userinfo(userinfo) {
        return Err(err("net/url: invalid userinfo"));
    }
    let user = match find(userinfo, b':') {
        None => (unescape(userinfo, Mode::UserPassword)?, None),
        Some(i) => (
            unescape(&userinfo[..i], Mode::UserPassword)?,
            Some(unescape(&userinfo[i + 1..], Mode::UserPassword)?),
        ),
    };
    Ok((Some(user), host))
}

/// net/url `validUserinfo`, over the runes of the text (non-ASCII is refused).
fn valid_userinfo(s: &[u8]) -> bool {
    s.iter().all(|&c| {
        c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'-' | b'.'
                    | b'_'
                    | b':'
                    | b'~'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
                    | b'%'
                    | b'@'
            )
    })
}

/// net/url `validOptionalPort`: empty, or `:` and digits.
fn valid_optional_port(port: &[u8]) -> bool {
    port.is_empty() || (port[0] == b':' && port[1..].iter().all(u8::is_ascii_digit))
}

/// net/url `parseHost` (with the default `urlstrictcolons=1` of a Go 1.26 module).
fn parse_host(scheme: &[u8], host: &[u8]) -> Result<Vec<u8>, UrlError> {
    match rfind(host, b'[') {
        Some(i) if i > 0 => return Err(err("invalid IP-literal")),
        Some(_) => {
            let Some(close) = rfind(host, b']') else {
                return Err(err("missing ']' in host"));
            };
            let colon_port = &host[close + 1..];
            if !valid_optional_port(colon_port) {
                return Err(err(format!(
                    "invalid port {} after host",
                    go_quote(colon_port)
                )));
            }
            let colon_port = unescape(colon_port, Mode::Host)?;
            let hostname = &host[1..close];
            let unescaped = match hostname.windows(3).position(|w| w == b"%25") {
                Some(z) => {
                    let mut h = unescape(&hostname[..z], Mode::Host)?;
                    h.extend(unescape(&hostname[z..], Mode::Zone)?);
                    h
                }
                None => unescape(hostname, Mode::Host)?,
            };
            let is4 = parse_addr(&unescaped).map_err(|e| err(format!("invalid host: {e}")))?;
            if is4 {
                return Err(err("invalid IP-literal"));
            }
            let mut out = b"[".to_vec();
            out.extend(unescaped);
            out.push(b']');
            out.extend(colon_port);
            return Ok(out);
        }
        None => {}
    }
    if let Some(first) = find(host, b':') {
        let last = rfind(host, b':').unwrap_or(first);
        // Strict colons for http and https: the first colon starts the port.
        let i = if last != first && !(scheme == b"http" || scheme == b"https") {
            last
        } else {
            first
        };
        let colon_port = &host[i..];
        if !valid_optional_port(colon_port) {
            return Err(err(format!(
                "invalid port {} after host",
                go_quote(colon_port)
            )));
        }
    }
    unescape(host, Mode::Host)
}

/// `netip.ParseAddr` as far as `parseHost` needs it: `Ok(true)` for an IPv4 address, `Ok(false)`
/// for an IPv6 one, else Go's message.
fn parse_addr(s: &[u8]) -> Result<bool, String> {
    let fail = |msg: &str, at: &[u8]| {
        if at.is_empty() {
            format!("ParseAddr({}): {msg}", go_quote(s))
        } else {
            format!("ParseAddr({}): {msg} (at {})", go_quote(s), go_quote(at))
        }
    };
    for &c in s {
        match c {
            b'.' => {
                return parse_ipv4_fields(s)
                    .map(|_| true)
                    .map_err(|(m, at)| fail(&m, at));
            }
            b':' => return parse_ipv6(s).map(|_| false).map_err(|(m, at)| fail(&m, at)),
            b'%' => return Err(fail("missing IPv6 address", b"")),
            _ => {}
        }
    }
    Err(fail("unable to parse IP", b""))
}

type AddrError<'a> = (String, &'a [u8]);

/// netip `parseIPv4Fields` over `s` (the whole address, or its embedded IPv4 tail).
fn parse_ipv4_fields(s: &[u8]) -> Result<(), AddrError<'_>> {
    let (mut val, mut pos, mut dig_len) = (0u32, 0, 0);
    for i in 0..s.len() {
        let c = s[i];
        if c.is_ascii_digit() {
            if dig_len == 1 && val == 0 {
                return Err(("IPv4 field has octet with leading zero".into(), b""));
            }
            val = val * 10 + u32::from(c - b'0');
            dig_len += 1;
            if val > 255 {
                return Err(("IPv4 field has value >255".into(), b""));
            }
        } else if c == b'.' {
            if i == 0 || i == s.len() - 1 || s[i - 1] == b'.' {
                return Err(("IPv4 field must have at least one digit".into(), &s[i..]));
            }
            if pos == 3 {
                return Err(("IPv4 address too long".into(), b""));
            }
            pos += 1;
            val = 0;
            dig_len = 0;
        } else {
            return Err(("unexpected character".into(), &s[i..]));
        }
    }
    if pos < 3 {
        return Err(("IPv4 address too short".into(), b""));
    }
    Ok(())
}

/// netip `parseIPv6`: only whether it parses, and Go's message when not.
fn parse_ipv6(input: &[u8]) -> Result<(), AddrError<'_>> {
    let mut s = input;
    let mut zone_len = None;
    if let Some(i) = find(s, b'%') {
        if i + 1 == s.len() {
            return Err(("zone must be a non-empty string".into(), b""));
        }
        zone_len = Some(s.len() - i - 1);
        s = &s[..i];
    }
    let mut ellipsis: i32 = -1;
    if s.len() >= 2 && s[0] == b':' && s[1] == b':' {
        ellipsis = 0;
        s = &s[2..];
        if s.is_empty() {
            return Ok(());
        }
    }
    let mut i = 0;
    while i < 16 {
        let mut off = 0;
        let mut acc: u32 = 0;
        while off < s.len() {
            let c = s[off];
            let d = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                _ => break,
            };
            acc = (acc << 4) + u32::from(d);
            if off > 3 {
                return Err(("each group must have 4 or less digits".into(), s));
            }
            if acc > 0xFFFF {
                return Err(("IPv6 field has value >=2^16".into(), s));
            }
            off += 1;
        }
        if off == 0 {
            return Err((
                "each colon-separated field must have at least one digit".into(),
                s,
            ));
        }
        if off < s.len() && s[off] == b'.' {
            if ellipsis < 0 && i != 12 {
                return Err((
                    "embedded IPv4 address must replace the final 2 fields of the address".into(),
                    s,
                ));
            }
            if i + 4 > 16 {
                return Err((
                    "too many hex fields to fit an embedded IPv4 at the end of the address".into(),
                    s,
                ));
            }
            let end = input.len() - zone_len.map_or(0, |z| z + 1);
            parse_ipv4_fields(&input[end - s.len()..end])?;
            s = &s[s.len()..];
            i += 4;
            break;
        }
        i += 2;
        s = &s[off..];
        if s.is_empty() {
            break;
        }
        if s[0] != b':' {
            return Err(("unexpected character, want colon".into(), s));
        } else if s.len() == 1 {
            return Err(("colon must be followed by more characters".into(), s));
        }
        s = &s[1..];
        if s[0] == b':' {
            if ellipsis >= 0 {
                return Err(("multiple :: in address".into(), s));
            }
            ellipsis = i;
            s = &s[1..];
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return Err(("trailing garbage after address".into(), s));
    }
    if i < 16 {
        if ellipsis < 0 {
            return Err(("address string too short".into(), b""));
        }
    } else if ellipsis >= 0 {
        return Err((
            "the :: must expand to at least one field of zeros".into(),
            b"",
        ));
    }
    Ok(())
}

/// net/url `validEncoded`.
fn valid_encoded(s: &[u8], mode: Mode) -> bool {
    s.iter().all(|&c| {
        matches!(
            c,
            b'!' | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'@'
                | b'['
                | b']'
                | b'%'
        ) || !should_escape(c, mode)
    })
}

impl GoUrl {
    /// `(*URL).EscapedPath`.
    fn escaped_path(&self) -> Vec<u8> {
        if !self.raw_path.is_empty()
            && valid_encoded(&self.raw_path, Mode::Path)
            && unescape(&self.raw_path, Mode::Path).is_ok_and(|p| p == self.path)
        {
            return self.raw_path.clone();
        }
        if self.path == b"*" {
            return b"*".to_vec();
        }
        escape(&self.path, Mode::Path)
    }

    /// `(*URL).EscapedFragment`.
    fn escaped_fragment(&self) -> Vec<u8> {
        if !self.raw_fragment.is_empty()
            && valid_encoded(&self.raw_fragment, Mode::Fragment)
            && unescape(&self.raw_fragment, Mode::Fragment).is_ok_and(|f| f == self.fragment)
        {
            return self.raw_fragment.clone();
        }
        escape(&self.fragment, Mode::Fragment)
    }

    /// `(*URL).String`, as bytes (a Go string).
    pub fn go_string(&self) -> Vec<u8> {
        let mut buf = Vec::new();
        if !self.scheme.is_empty() {
            buf.extend(&self.scheme);
            buf.push(b':');
        }
        if !self.opaque.is_empty() {
            buf.extend(&self.opaque);
        } else {
            let authority = !self.scheme.is_empty() || !self.host.is_empty() || self.user.is_some();
            let omitted = self.omit_host && self.host.is_empty() && self.user.is_none();
            if authority && !omitted {
                if !self.host.is_empty() || !self.path.is_empty() || self.user.is_some() {
                    buf.extend(b"//");
                }
                if let Some((name, password)) = &self.user {
                    buf.extend(escape(name, Mode::UserPassword));
                    if let Some(p) = password {
                        buf.push(b':');
                        buf.extend(escape(p, Mode::UserPassword));
                    }
                    buf.push(b'@');
                }
                if !self.host.is_empty() {
                    buf.extend(escape(&self.host, Mode::Host));
                }
            }
            let path = self.escaped_path();
            if !path.is_empty() && path[0] != b'/' && !self.host.is_empty() {
                buf.push(b'/');
            }
            if buf.is_empty() {
                let segment = &path[..find(&path, b'/').unwrap_or(path.len())];
                if segment.contains(&b':') {
                    buf.extend(b"./");
                }
            }
            buf.extend(path);
        }
        if self.force_query || !self.raw_query.is_empty() {
            buf.push(b'?');
            buf.extend(&self.raw_query);
        }
        if !self.fragment.is_empty() {
            buf.push(b'#');
            buf.extend(self.escaped_fragment());
        }
        buf
    }
}

/// ARC's `ErrInvalidGitHubConfigURL` text.
const INVALID_CONFIG_URL: &str =
    "invalid config URL, should point to an enterprise, org, or repository";

/// The error `newEphemeralRunnerSet` returns for this `githubConfigUrl` (what ARC logs before
/// giving up on the set), or `None` when ARC's `applyGitHubURLLabels` accepts it: the URL,
/// trimmed of '/' at both ends, must parse with `url.Parse`, and its path must name an
/// organization (one segment), a repository (`OWNER/REPO`) or an enterprise
/// (`enterprises/NAME`).
pub fn github_config_error(config_url: &str) -> Option<String> {
    let wrap = |e: String| {
        format!("failed to apply GitHub URL labels: failed to parse github config from url: {e}")
    };
    let url = match parse(config_url.trim_matches('/')) {
        Ok(u) => u,
        Err(e) => return Some(wrap(e.0)),
    };
    let path = url.path.as_slice();
    let start = path.iter().position(|&b| b != b'/').unwrap_or(path.len());
    let end = path
        .iter()
        .rposition(|&b| b != b'/')
        .map_or(start, |i| i + 1);
    let trimmed = &path[start..end.max(start)];
    let segments = trimmed.split(|&b| b == b'/').count();
    let scoped = match segments {
        1 => !trimmed.is_empty(),
        2 => true,
        _ => false,
    };
    if scoped {
        None
    } else {
        Some(wrap(format!(
            "{}: {INVALID_CONFIG_URL}",
            go_quote(&url.go_string())
        )))
    }
}

/// Go's `strconv.Quote` of a Go string (bytes): `"` and `\` escaped, printable runes as they are,
/// `\a \b \f \n \r \t \v`, other control bytes and invalid UTF-8 as `\xNN`, other runes `\uNNNN`
/// or `\UNNNNNNNN`. Printability is Go's `unicode.IsPrint` (see [`go_is_print`]).
pub fn go_quote(s: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for chunk in s.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '"' | '\\' => {
                    out.push('\\');
                    out.push(c);
                }
                c if go_is_print(c) => out.push(c),
                '\u{7}' => out.push_str("\\a"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{b}' => out.push_str("\\v"),
                c if (c as u32) < 0x20 || c == '\u{7f}' => {
                    let _ = write!(out, "\\x{:02x}", c as u32);
                }
                c if (c as u32) < 0x10000 => {
                    let _ = write!(out, "\\u{:04x}", c as u32);
                }
                c => {
                    let _ = write!(out, "\\U{:08x}", c as u32);
                }
            }
        }
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out.push('"');
    out
}

/// Go's `unicode.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space.
/// Here: everything but control characters, white space other than ' ', the format characters
/// (category Cf), private use and noncharacters. Unassigned code points, which Go also counts as
/// not printable, are taken as printable: no table of them is kept.
pub fn go_is_print(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    let u = c as u32;
    let format = matches!(
        u,
        0xAD | 0x600..=0x605
            | 0x61C
            | 0x6DD
            | 0x70F
            | 0x890..=0x891
            | 0x8E2
            | 0x180E
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x2064
            | 0x2066..=0x206F
            | 0xFEFF
            | 0xFFF9..=0xFFFB
            | 0x110BD
            | 0x110CD
            | 0x13430..=0x1343F
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0001
            | 0xE0020..=0xE007F
    );
    let private = matches!(u, 0xE000..=0xF8FF | 0xF0000..=0xFFFFD | 0x100000..=0x10FFFD);
    let nonchar = (0xFDD0..=0xFDEF).contains(&u) || (u & 0xFFFE) == 0xFFFE;
    // U+2028 and U+2029 are white space for Rust too; U+00A0 and the other spaces likewise.
    !(format || private || nonchar)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Messages of Go 1.26's net/url and ARC's parser for these `githubConfigUrl`s (the oracle's
    /// `githubConfigUrl` op).
    #[test]
    fn github_config_urls_as_arc_reads_them() {
        for ok in [
            "https://github.com/org",
            "https://github.com/org/repo/",
            "https://github.com/enterprises/e",
            "https://ghe.example.com:8443/o/r",
            "https://github.com/a%2Fb",
            "github.com/org",
            "https://[::1]:80/o",
        ] {
            assert_eq!(github_config_error(ok), None, "{ok}");
        }
        let prefix = "failed to apply GitHub URL labels: failed to parse github config from url: ";
        for (bad, why) in [
            (
                "https://github.com",
                r#""https://github.com": invalid config URL, should point to an enterprise, org, or repository"#,
            ),
            (
                "https://github.com/a/b/c",
                r#""https://github.com/a/b/c": invalid config URL, should point to an enterprise, org, or repository"#,
            ),
            (
                "https://github.com/a/%zz",
                r#"parse "https://github.com/a/%zz": invalid URL escape "%zz""#,
            ),
            (
                "https://github.com/a/%e2%8",
                r#"parse "https://github.com/a/%e2%8": invalid URL escape "%8""#,
            ),
            (
                "https://git hub.com/o",
                r#"parse "https://git hub.com/o": invalid character " " in host name"#,
            ),
            (
                "https://github.com:x/o",
                r#"parse "https://github.com:x/o": invalid port ":x" after host"#,
            ),
            (
                "://github.com/o",
                r#"parse "://github.com/o": missing protocol scheme"#,
            ),
            (
                "https://[1.2.3.4]/o",
                r#"parse "https://[1.2.3.4]/o": invalid IP-literal"#,
            ),
            (
                "https://[::g]/o",
                r#"parse "https://[::g]/o": invalid host: ParseAddr("::g"): each colon-separated field must have at least one digit (at "g")"#,
            ),
            (
                "https://github.com/a\tb",
                r#"parse "https://github.com/a\tb": net/url: invalid control character in URL"#,
            ),
        ] {
            assert_eq!(
                github_config_error(bad).as_deref(),
                Some(format!("{prefix}{why}").as_str()),
                "{bad}"
            );
        }
    }

    #[test]
    fn quote_is_strconv_quote() {
        assert_eq!(go_quote(b"a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(
            go_quote("é\u{2028}\u{7f}\u{1F600}".as_bytes()),
            "\"é\\u2028\\x7f\u{1F600}\""
        );
        assert_eq!(go_quote(b"%\xe2\x82"), r#""%\xe2\x82""#);
    }
}

//! `time.Parse(time.RFC3339, s)` as `metav1.Time.UnmarshalJSON` calls it.
//!
//! Pure core. Returns Go's internal reading of the instant: seconds since 0001-01-01T00:00:00Z (Go's
//! `ext` for a time without a monotonic reading) and the nanosecond. The offset only moves the
//! instant: `.Local()` then drops it, so two spellings of one instant decode to identical values.
//! Mirrors Go's `time.Parse` for the RFC 3339 layout `2006-01-02T15:04:05Z07:00`: fractional seconds
//! are accepted after the seconds though the layout has none (digits past the ninth are dropped),
//! fields are range-checked, and the offset is `Z` or `±hh:mm`.

/// Seconds from 0001-01-01 to 1970-01-01 (Go's `unixToInternal`).
pub const UNIX_TO_INTERNAL: i64 = (1969 * 365 + 1969 / 4 - 1969 / 100 + 1969 / 400) * 86400;

/// Parse an RFC 3339 time; `(seconds since year 1, nanoseconds)`.
pub fn parse_rfc3339(s: &str) -> Result<(i64, u32), String> {
    let b = s.as_bytes();
    let num = |from: usize, len: usize, what: &str| -> Result<i64, String> {
        let part = b
            .get(from..from + len)
            .ok_or_else(|| format!("{what} is missing"))?;
        if !part.iter().all(u8::is_ascii_digit) {
            return Err(format!("{what} is not {len} digits"));
        }
        Ok(std::str::from_utf8(part).unwrap().parse().unwrap())
    };
    let lit = |at: usize, c: u8| -> Result<(), String> {
        if b.get(at) == Some(&c) {
            Ok(())
        } else {
            Err(format!("expected {:?} at {at}", c as char))
        }
    };
    let year = num(0, 4, "year")?;
    lit(4, b'-')?;
    let month = num(5, 2, "month")?;
    lit(7, b'-')?;
    let day = num(8, 2, "day")?;
    lit(10, b'T')?;
    let hour = num(11, 2, "hour")?;
    lit(13, b':')?;
    let minute = num(14, 2, "minute")?;
    lit(16, b':')?;
    let second = num(17, 2, "second")?;
    let mut i = 19;
    let mut nanos: u32 = 0;
    if matches!(b.get(i), Some(b'.' | b',')) && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
        let mut n = i + 1;
        while n < b.len() && b[n].is_ascii_digit() {
            n += 1;
        }
        let digits = &s[i + 1..n];
        let kept = &digits[..digits.len().min(9)];
        nanos = kept.parse::<u32>().unwrap() * 10u32.pow(9 - kept.len() as u32);
        i = n;
    }
    if !(1..=12).contains(&month) {
        return Err("month out of range".into());
    }
    if day < 1 || day > days_in_month(year, month) {
        return Err("day out of range".into());
    }
    if hour > 23 {
        return Err("hour out of range".into());
    }
    if minute > 59 {
        return Err("minute out of range".into());
    }
    if second > 59 {
        return Err("second out of range".into());
    }
    let offset = match b.get(i) {
        Some(b'Z') => {
            i += 1;
            0
        }
        Some(&sign @ (b'+' | b'-')) => {
            let oh = num(i + 1, 2, "offset hour")?;
            lit(i + 3, b':')?;
            let om = num(i + 4, 2, "offset minute")?;
            if oh > 23 || om > 59 {
                return Err("time zone offset out of range".into());
            }
            i += 6;
            let o = oh * 3600 + om * 60;
            if sign == b'-' { -o } else { o }
        }
        _ => return Err("missing time zone offset".into()),
    };
    if i != b.len() {
        return Err(format!("extra text {:?}", &s[i..]));
    }
    let days = days_from_civil(year, month, day);
    let unix = days * 86400 + hour * 3600 + minute * 60 + second - offset;
    Ok((unix + UNIX_TO_INTERNAL, nanos))
}

/// `t.UTC().Format(time.RFC3339Nano)`-like spelling of an instant, for display only.
pub fn format_rfc3339_utc(secs: i64, nanos: u32) -> String {
    let unix = secs - UNIX_TO_INTERNAL;
    let days = unix.div_euclid(86400);
    let rem = unix.rem_euclid(86400);
    let (y, m, d) = civil_from_days(days);
    let frac = if nanos == 0 {
        String::new()
    } else {
        format!(".{nanos:09}").trim_end_matches('0').to_string()
    };
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}{frac}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Inverse of [`days_from_civil`].
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_match_go() {
        // time.Date(2024,1,2,3,4,5,6,time.UTC): wall 6, ext 63839761445 (go-semantics.md A.9).
        assert_eq!(
            parse_rfc3339("2024-01-02T03:04:05.000000006Z").unwrap(),
            (63839761445, 6)
        );
        assert_eq!(parse_rfc3339("0001-01-01T00:00:00Z").unwrap(), (0, 0));
        assert_eq!(
            parse_rfc3339("2024-01-02T04:04:05+01:00").unwrap(),
            parse_rfc3339("2024-01-02T03:04:05Z").unwrap()
        );
        assert_eq!(
            parse_rfc3339("2024-01-02T03:04:05.1234567891Z").unwrap().1,
            123456789
        );
        for bad in [
            "2024-13-01T00:00:00Z",
            "2023-02-29T00:00:00Z",
            "2024-01-01 00:00:00Z",
            "2024-01-01T00:00:00",
            "2024-01-01T24:00:00Z",
            "2024-01-01T00:00:00Zx",
        ] {
            assert!(parse_rfc3339(bad).is_err(), "{bad}");
        }
        assert!(parse_rfc3339("2024-02-29T00:00:00Z").is_ok());
        let (s, n) = parse_rfc3339("2024-02-29T13:14:15.25+02:00").unwrap();
        assert_eq!(format_rfc3339_utc(s, n), "2024-02-29T11:14:15.25Z");
        assert_eq!(format_rfc3339_utc(0, 0), "0001-01-01T00:00:00Z");
    }
}

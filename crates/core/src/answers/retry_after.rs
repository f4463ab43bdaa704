//! Reading a `Retry-After` header, in either of its forms. A leaf: both the retry policy
//! ([`crate::transport::retry`]) and the error sentences ([`crate::answers::errors`]) read it.

/// Seconds from a `Retry-After` header in its delta-seconds form (`"7"`, or `"1.5"` as some
/// proxies send).
pub fn parse_retry_after(value: &str) -> Option<f64> {
    let secs: f64 = value.trim().parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then_some(secs)
}

/// Seconds to wait from a `Retry-After` header in either form: delta-seconds, or an HTTP-date
/// (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110's IMF-fixdate) measured from `now_unix_s`.
/// A date in the past means "now" (0).
pub fn retry_after_secs(value: &str, now_unix_s: f64) -> Option<f64> {
    parse_retry_after(value).or_else(|| Some((http_date(value)? - now_unix_s).max(0.0)))
}

/// Unix seconds of an IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
pub fn http_date(value: &str) -> Option<f64> {
    let mut parts = value.trim().split_ascii_whitespace();
    let _weekday = parts.next()?.strip_suffix(',')?;
    let day: i64 = parts.next()?.parse().ok()?;
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month_name = parts.next()?;
    let month = MONTHS.iter().position(|m| *m == month_name)? as i64 + 1;
    let year: i64 = parts.next()?.parse().ok()?;
    let mut hms = parts.next()?.split(':').map(|x| x.parse::<i64>().ok());
    let (h, m, sec) = (hms.next()??, hms.next()??, hms.next()??);
    if parts.next()? != "GMT" || parts.next().is_some() || hms.next().is_some() {
        return None;
    }
    if !(1..=31).contains(&day) || h > 23 || m > 59 || sec > 60 || !(1970..=9999).contains(&year) {
        return None;
    }
    // Days from 1970-01-01 to the civil date (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some((days * 86_400 + h * 3600 + m * 60 + sec) as f64)
}

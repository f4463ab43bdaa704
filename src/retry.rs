//! When to try a request again. Rate limits (429) and server failures (408, 5xx) are retried
//! with exponential backoff and jitter; a `Retry-After` from the server is honoured as the
//! least wait. Everything else (a bad key, an unknown model) would fail the same way again.

use crate::errors::JudgeError;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RetryPolicy {
    /// Retries after the first attempt; 0 turns retrying off.
    pub max_retries: u32,
    /// The first backoff; it doubles with each retry.
    pub base_ms: u32,
    /// Longest wait we accept. A server asking for more is reported instead of waited on, so
    /// a run never sits silently for minutes.
    pub max_wait_ms: u32,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 3,
            base_ms: 1000,
            max_wait_ms: 60_000,
        }
    }
}

/// Seconds from a `Retry-After` header in its delta-seconds form (`"7"`, or `"1.5"` as some
/// proxies send). The HTTP-date form is not read; backoff applies then.
pub fn parse_retry_after(value: &str) -> Option<f64> {
    let secs: f64 = value.trim().parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then_some(secs)
}

impl RetryPolicy {
    /// How long to wait before retry number `retries_done + 1`, or `None` to give up.
    /// `jitter` is a uniform random number in [0, 1).
    pub fn delay_ms(&self, retries_done: u32, error: &JudgeError, jitter: f64) -> Option<u32> {
        if retries_done >= self.max_retries || !error.is_transient() {
            return None;
        }
        let jitter = jitter.clamp(0.0, 1.0);
        let asked = match error {
            JudgeError::Http {
                retry_after: Some(v),
                ..
            } => parse_retry_after(v),
            _ => None,
        };
        let wait = match asked {
            // At least what the server asked, plus up to 10 % so parallel requests do not
            // all come back in the same millisecond.
            Some(secs) => secs * 1000.0 * (1.0 + 0.1 * jitter),
            // "Equal jitter": half the exponential step fixed, half random.
            None => {
                let step = f64::from(self.base_ms) * 2f64.powi(retries_done.min(30) as i32);
                step * (0.5 + 0.5 * jitter)
            }
        };
        if asked.is_some() && wait > f64::from(self.max_wait_ms) {
            return None;
        }
        Some(wait.min(f64::from(self.max_wait_ms)).round() as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(status: u16, retry_after: Option<&str>) -> JudgeError {
        JudgeError::Http {
            status,
            message: None,
            retry_after: retry_after.map(str::to_owned),
        }
    }

    #[test]
    fn backoff_doubles_with_bounded_jitter() {
        let p = RetryPolicy::default();
        let e = http(500, None);
        assert_eq!(p.delay_ms(0, &e, 0.0), Some(500));
        assert_eq!(p.delay_ms(0, &e, 0.999_999), Some(1000));
        assert_eq!(p.delay_ms(1, &e, 0.0), Some(1000));
        assert_eq!(p.delay_ms(2, &e, 0.0), Some(2000));
        assert_eq!(p.delay_ms(3, &e, 0.0), None, "three retries at most");
    }

    #[test]
    fn retry_after_is_the_least_wait() {
        let p = RetryPolicy::default();
        assert_eq!(p.delay_ms(0, &http(429, Some("2")), 0.0), Some(2000));
        assert_eq!(p.delay_ms(0, &http(429, Some("2")), 0.5), Some(2100));
        assert_eq!(p.delay_ms(0, &http(503, Some("0.5")), 0.0), Some(500));
        // An HTTP-date is not read: plain backoff.
        let dated = http(429, Some("Wed, 21 Oct 2026 07:28:00 GMT"));
        assert_eq!(p.delay_ms(0, &dated, 0.0), Some(500));
        // Asking for more than a minute is reported, not waited on.
        assert_eq!(p.delay_ms(0, &http(429, Some("3600")), 0.0), None);
    }

    #[test]
    fn only_transient_errors_are_retried() {
        let p = RetryPolicy::default();
        for e in [
            http(400, None),
            http(401, None),
            http(404, None),
            JudgeError::NoLogprobs,
            JudgeError::Timeout { seconds: 5 },
            JudgeError::Network { url: "x".into() },
            JudgeError::Cancelled,
        ] {
            assert_eq!(p.delay_ms(0, &e, 0.3), None, "{e:?}");
        }
        for status in [408, 429, 500, 502, 503, 504, 529] {
            assert!(
                p.delay_ms(0, &http(status, None), 0.3).is_some(),
                "{status}"
            );
        }
        let off = RetryPolicy {
            max_retries: 0,
            ..p
        };
        assert_eq!(off.delay_ms(0, &http(500, None), 0.3), None);
    }

    #[test]
    fn garbage_retry_after_values() {
        assert_eq!(parse_retry_after(" 7 "), Some(7.0));
        assert_eq!(parse_retry_after("-1"), None);
        assert_eq!(parse_retry_after("NaN"), None);
        assert_eq!(parse_retry_after(""), None);
    }
}

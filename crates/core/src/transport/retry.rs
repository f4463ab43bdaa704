//! When to try a request again. Rate limits (429) and server failures (408, 5xx) are retried
//! with exponential backoff and jitter; a `Retry-After` from the server is honoured as the
//! least wait. Everything else (a bad key, an unknown model) would fail the same way again.
//! [`RetryPolicy::next_wait`] is what every door's retry loop asks after a failed attempt: the
//! wait and the sentence the user sees; the door keeps its own timer and fetch.

use crate::answers::errors::JudgeError;
pub use crate::answers::retry_after::{http_date, parse_retry_after, retry_after_secs};

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

impl RetryPolicy {
    /// How long to wait before retry number `retries_done + 1`, or `None` to give up.
    /// `jitter` is a uniform random number in [0, 1); `now_unix_s` dates a `Retry-After` date.
    pub fn delay_ms(
        &self,
        retries_done: u32,
        error: &JudgeError,
        jitter: f64,
        now_unix_s: f64,
    ) -> Option<u32> {
        if retries_done >= self.max_retries || !error.is_transient() {
            return None;
        }
        let jitter = jitter.clamp(0.0, 1.0);
        let asked = match error {
            JudgeError::Http {
                retry_after: Some(v),
                ..
            } => retry_after_secs(v, now_unix_s),
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

    /// After a failed attempt, `retries_done` retries into a request: the wait before the next
    /// attempt and the sentence saying why, or `None` to give up with `error`. The page's
    /// transport and `hj`'s client both ask this, so they retry and word it alike.
    pub fn next_wait(
        &self,
        retries_done: u32,
        error: &JudgeError,
        jitter: f64,
        now_unix_s: f64,
    ) -> Option<Wait> {
        let ms = self.delay_ms(retries_done, error, jitter, now_unix_s)?;
        Some(Wait {
            ms,
            sentence: format!(
                "{} Retrying in {:.1} s (retry {} of {}).",
                short_reason(error),
                f64::from(ms) / 1000.0,
                retries_done + 1,
                self.max_retries
            ),
        })
    }
}

/// A wait before the next attempt: how long, and the sentence that says why.
#[derive(Clone, Debug, PartialEq)]
pub struct Wait {
    pub ms: u32,
    pub sentence: String,
}

/// Why a request is retried, in a few words.
fn short_reason(error: &JudgeError) -> String {
    match error {
        JudgeError::Http { status: 429, .. } => "Rate limited (HTTP 429).".into(),
        JudgeError::Http { status, .. } => format!("The server failed (HTTP {status})."),
        other => other.to_string(),
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
        assert_eq!(p.delay_ms(0, &e, 0.0, NOW), Some(500));
        assert_eq!(p.delay_ms(0, &e, 0.999_999, NOW), Some(1000));
        assert_eq!(p.delay_ms(1, &e, 0.0, NOW), Some(1000));
        assert_eq!(p.delay_ms(2, &e, 0.0, NOW), Some(2000));
        assert_eq!(p.delay_ms(3, &e, 0.0, NOW), None, "three retries at most");
    }

    #[test]
    fn retry_after_is_the_least_wait() {
        let p = RetryPolicy::default();
        assert_eq!(p.delay_ms(0, &http(429, Some("2")), 0.0, NOW), Some(2000));
        assert_eq!(p.delay_ms(0, &http(429, Some("2")), 0.5, NOW), Some(2100));
        assert_eq!(p.delay_ms(0, &http(503, Some("0.5")), 0.0, NOW), Some(500));
        // An HTTP-date: 30 s after NOW; one in the past means now.
        let dated = http(429, Some("Wed, 21 Oct 2026 07:28:30 GMT"));
        assert_eq!(p.delay_ms(0, &dated, 0.0, NOW), Some(30_000));
        let past = http(429, Some("Sun, 06 Nov 1994 08:49:37 GMT"));
        assert_eq!(p.delay_ms(0, &past, 0.0, NOW), Some(0));
        // Not a date either: plain backoff.
        let garbage = http(429, Some("Wed, 21 Oct 2026 07:28:30 PST"));
        assert_eq!(p.delay_ms(0, &garbage, 0.0, NOW), Some(500));
        // Asking for more than a minute is reported, not waited on.
        assert_eq!(p.delay_ms(0, &http(429, Some("3600")), 0.0, NOW), None);
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
            assert_eq!(p.delay_ms(0, &e, 0.3, NOW), None, "{e:?}");
        }
        for status in [408, 429, 500, 502, 503, 504, 529] {
            assert!(
                p.delay_ms(0, &http(status, None), 0.3, NOW).is_some(),
                "{status}"
            );
        }
        let off = RetryPolicy {
            max_retries: 0,
            ..p
        };
        assert_eq!(off.delay_ms(0, &http(500, None), 0.3, NOW), None);
    }

    #[test]
    fn the_wait_is_said_in_one_sentence() {
        let p = RetryPolicy {
            max_retries: 2,
            ..RetryPolicy::default()
        };
        let limited = p.next_wait(0, &http(429, Some("2")), 0.0, NOW).unwrap();
        assert_eq!(limited.ms, 2000);
        assert_eq!(
            limited.sentence,
            "Rate limited (HTTP 429). Retrying in 2.0 s (retry 1 of 2)."
        );
        let failed = p.next_wait(1, &http(503, None), 0.0, NOW).unwrap();
        assert_eq!(failed.ms, 1000);
        assert_eq!(
            failed.sentence,
            "The server failed (HTTP 503). Retrying in 1.0 s (retry 2 of 2)."
        );
        let timed_out = JudgeError::Http {
            status: 408,
            message: None,
            retry_after: Some("0.5".into()),
        };
        assert!(p
            .next_wait(0, &timed_out, 0.0, NOW)
            .unwrap()
            .sentence
            .starts_with("The server failed (HTTP 408). Retrying in 0.5 s"));
        // The attempt limit and a lasting error give up, as `delay_ms` does.
        assert_eq!(p.next_wait(2, &http(503, None), 0.0, NOW), None);
        assert_eq!(p.next_wait(0, &http(401, None), 0.0, NOW), None);
    }

    /// Wed, 21 Oct 2026 07:28:00 GMT.
    const NOW: f64 = 1_792_567_680.0;

    #[test]
    fn http_dates_are_unix_seconds() {
        assert_eq!(
            http_date("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(784_111_777.0)
        );
        assert_eq!(http_date("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0.0));
        assert_eq!(http_date("Wed, 21 Oct 2026 07:28:00 GMT"), Some(NOW));
        assert_eq!(
            http_date("Tue, 29 Feb 2028 12:00:00 GMT"),
            Some(1_835_438_400.0)
        );
        for bad in [
            "",
            "7",
            "Sun 06 Nov 1994 08:49:37 GMT",
            "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 25:49:37 GMT",
            "Sun, 06 Nov 1994 08:49 GMT",
            "Sun, 06 Nov 1994 08:49:37 GMT x",
        ] {
            assert_eq!(http_date(bad), None, "{bad}");
        }
    }

    #[test]
    fn garbage_retry_after_values() {
        assert_eq!(parse_retry_after(" 7 "), Some(7.0));
        assert_eq!(parse_retry_after("-1"), None);
        assert_eq!(parse_retry_after("NaN"), None);
        assert_eq!(parse_retry_after(""), None);
    }
}

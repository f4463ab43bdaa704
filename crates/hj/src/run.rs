//! Judging items live, as the lab's run does: several items at a time (the provider's
//! concurrency, one at a time in repeatable mode), each item's requests built by the plan, sent
//! with retries and read by the plan (`Plan::read`), each result appended to the results file
//! the moment it is read. A failure that would fail every item alike (a rejected key, an
//! unreachable server, a rate limit that outlasts the retries, a redirect) stops the run
//! instead: the item it hit is not recorded, so the same command resumes with nothing lost.

use std::collections::HashSet;
use std::sync::Mutex;

use harmonic_judge_core::answers::errors::{redact, JudgeError};
use harmonic_judge_core::batch::plan::Plan;
use harmonic_judge_core::batch::Item;
use harmonic_judge_core::lab::ItemResult;
use harmonic_judge_core::native::batch_files;
use harmonic_judge_core::native::files::Images;
use harmonic_judge_core::providers::Backend;

use crate::http::Client;
use crate::outfile::Appender;
use crate::progress::Progress;

/// What one item needs besides itself.
pub struct Judge<'a> {
    pub plan: &'a Plan,
    pub backend: &'a Backend,
    pub images: &'a Images,
    pub boxes_drawn: bool,
    pub client: &'a Client,
}

/// The sentence for an error, as the page says it but for the command line where the page's
/// words are about the browser, and without the key.
pub fn say(e: &JudgeError, key: &str) -> String {
    let s = match e {
        JudgeError::Network { url } => format!(
            "Could not reach {url}: nothing answered there. Is the server running, and is the \
             base URL right (it usually ends in /v1)?"
        ),
        other => other.to_string(),
    };
    redact(&s, key)
}

/// Whether an error would fail every other item the same way, so the run stops at it.
pub fn stops_the_run(e: &JudgeError) -> bool {
    matches!(
        e,
        JudgeError::KeyRejected { .. }
            | JudgeError::Network { .. }
            | JudgeError::Redirect { .. }
            | JudgeError::Setting { .. }
            | JudgeError::NoVision { .. }
            | JudgeError::ImageTokens { .. }
            | JudgeError::Http {
                status: 401 | 403 | 404 | 429,
                ..
            }
    )
}

impl Judge<'_> {
    /// One item's result, or the sentence that stops the run. `on_wait` hears retries.
    pub fn item(&self, item: &Item, on_wait: &dyn Fn(String)) -> Result<ItemResult, String> {
        let key = &self.backend.api_key;
        let requests = match batch_files::item_requests(
            self.plan,
            self.backend,
            item,
            self.images,
            self.boxes_drawn,
        ) {
            Ok(r) => r,
            Err(result) => return Ok(*result),
        };
        let mut answers = Vec::with_capacity(requests.len());
        for (slot, request) in requests {
            let wait = |why: String| on_wait(format!("{} · {slot}: {why}", item.id));
            let answer = self.client.chat(self.backend.protocol, &request, &wait);
            if let Err(e) = &answer {
                if stops_the_run(e) {
                    return Err(say(e, key));
                }
            }
            answers.push((slot, answer));
        }
        let result = self.plan.blank_result(item);
        Ok(self
            .plan
            .read(self.backend, item, result, answers, |e| say(&e, key)))
    }
}

/// How a run ended.
pub struct Outcome {
    pub done: usize,
    pub failed: usize,
    /// The sentence that stopped it early.
    pub stopped: Option<String>,
}

struct Shared<'a> {
    next: usize,
    done: usize,
    failed: usize,
    stopped: Option<String>,
    out: Appender,
    progress: &'a mut Progress,
}

/// Runs the `items` not in `finished` with `workers` at a time; `done`/`failed` are the
/// counts the file held already.
pub fn run(
    judge: &Judge,
    items: &[Item],
    finished: &HashSet<String>,
    workers: usize,
    out: Appender,
    progress: &mut Progress,
    (done, failed): (usize, usize),
) -> Outcome {
    let todo: Vec<&Item> = items.iter().filter(|i| !finished.contains(&i.id)).collect();
    progress.update(done, failed, true);
    let shared = Mutex::new(Shared {
        next: 0,
        done,
        failed,
        stopped: None,
        out,
        progress,
    });
    std::thread::scope(|scope| {
        for _ in 0..workers.clamp(1, todo.len().max(1)) {
            scope.spawn(|| worker(judge, &todo, &shared));
        }
    });
    let s = shared.into_inner().unwrap_or_else(|e| e.into_inner());
    s.progress.update(s.done, s.failed, true);
    s.progress.finish();
    Outcome {
        done: s.done,
        failed: s.failed,
        stopped: s.stopped,
    }
}

fn worker(judge: &Judge, todo: &[&Item], shared: &Mutex<Shared>) {
    let lock = || shared.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        let item = {
            let mut s = lock();
            if s.stopped.is_some() || s.next >= todo.len() {
                return;
            }
            s.next += 1;
            todo[s.next - 1]
        };
        let on_wait = |why: String| lock().progress.say(&why);
        let outcome = judge.item(item, &on_wait);
        let mut s = lock();
        match outcome {
            Ok(result) => {
                if let Err(e) = s.out.append(&result) {
                    s.stopped.get_or_insert(e);
                    return;
                }
                if result.is_complete() {
                    s.done += 1;
                } else {
                    s.failed += 1;
                    if let Some(e) = &result.error {
                        let line = format!("{}: {e}", result.id);
                        s.progress.say(&line);
                    }
                }
                let (d, f) = (s.done, s.failed);
                s.progress.update(d, f, false);
            }
            Err(sentence) => {
                s.stopped.get_or_insert(sentence);
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_fails_every_item_stops_the_run_and_the_rest_is_recorded() {
        let http = |status| JudgeError::Http {
            status,
            message: None,
            retry_after: None,
        };
        assert!(stops_the_run(&http(429)) && stops_the_run(&http(401)));
        assert!(!stops_the_run(&http(500)) && !stops_the_run(&JudgeError::Timeout { seconds: 1 }));
        let net = say(
            &JudgeError::Network {
                url: "http://127.0.0.1:9/v1/chat/completions?k=sk-secret".into(),
            },
            "sk-secret",
        );
        assert!(
            net.contains("Could not reach") && !net.contains("CORS"),
            "{net}"
        );
        assert!(!net.contains("sk-secret"));
    }
}

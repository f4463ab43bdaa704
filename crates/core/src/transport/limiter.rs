//! A first-come-first-served async semaphore: at most `limit` requests to a provider in flight.
//! Single-threaded (the browser's event loop), so `Rc<RefCell<…>>` and plain wakers suffice;
//! no executor-specific code, so it is tested natively.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

#[derive(Default)]
struct Inner {
    limit: usize,
    in_use: usize,
    next_ticket: u64,
    /// Waiting acquirers in arrival order.
    queue: VecDeque<(u64, Option<Waker>)>,
}

impl Inner {
    fn wake_front(&mut self) {
        if self.in_use < self.limit {
            if let Some((_, Some(w))) = self.queue.front() {
                w.wake_by_ref();
            }
        }
    }
}

/// Cloning shares the same slots.
#[derive(Clone)]
pub struct Limiter {
    inner: Rc<RefCell<Inner>>,
}

impl Limiter {
    /// `limit` is raised to at least 1.
    pub fn new(limit: usize) -> Limiter {
        Limiter {
            inner: Rc::new(RefCell::new(Inner {
                limit: limit.max(1),
                ..Inner::default()
            })),
        }
    }

    /// Changes the limit; requests already in flight finish, waiters start as slots free.
    pub fn set_limit(&self, limit: usize) {
        let mut inner = self.inner.borrow_mut();
        inner.limit = limit.max(1);
        inner.wake_front();
    }

    pub fn in_use(&self) -> usize {
        self.inner.borrow().in_use
    }

    pub fn waiting(&self) -> usize {
        self.inner.borrow().queue.len()
    }

    /// Waits for a slot. Dropping the future before it resolves gives up the place in line.
    pub fn acquire(&self) -> Acquire {
        let mut inner = self.inner.borrow_mut();
        let ticket = inner.next_ticket;
        inner.next_ticket += 1;
        inner.queue.push_back((ticket, None));
        Acquire {
            limiter: self.clone(),
            ticket,
            done: false,
        }
    }
}

pub struct Acquire {
    limiter: Limiter,
    ticket: u64,
    done: bool,
}

impl Future for Acquire {
    type Output = Permit;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Permit> {
        let ticket = self.ticket;
        let mut inner = self.limiter.inner.borrow_mut();
        let first = inner.queue.front().map(|(t, _)| *t) == Some(ticket);
        if first && inner.in_use < inner.limit {
            inner.queue.pop_front();
            inner.in_use += 1;
            // The next in line may fit too (the limit may have been raised).
            inner.wake_front();
            drop(inner);
            self.done = true;
            return Poll::Ready(Permit {
                limiter: self.limiter.clone(),
            });
        }
        if let Some(entry) = inner.queue.iter_mut().find(|(t, _)| *t == ticket) {
            entry.1 = Some(cx.waker().clone());
        }
        Poll::Pending
    }
}

impl Drop for Acquire {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let mut inner = self.limiter.inner.borrow_mut();
        inner.queue.retain(|(t, _)| *t != self.ticket);
        inner.wake_front();
    }
}

/// A held slot; dropping it lets the next waiter in.
pub struct Permit {
    limiter: Limiter,
}

impl Drop for Permit {
    fn drop(&mut self) {
        let mut inner = self.limiter.inner.borrow_mut();
        inner.in_use -= 1;
        inner.wake_front();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::task::Wake;

    struct CountingWaker(AtomicUsize);
    impl Wake for CountingWaker {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn poll(f: &mut Acquire, waker: &Waker) -> Option<Permit> {
        match Pin::new(f).poll(&mut Context::from_waker(waker)) {
            Poll::Ready(p) => Some(p),
            Poll::Pending => None,
        }
    }

    #[test]
    fn admits_up_to_the_limit_in_arrival_order() {
        let counter = Arc::new(CountingWaker(AtomicUsize::new(0)));
        let waker = Waker::from(counter.clone());
        let l = Limiter::new(2);
        let (mut a, mut b, mut c, mut d) = (l.acquire(), l.acquire(), l.acquire(), l.acquire());
        let pa = poll(&mut a, &waker).expect("first slot");
        let pb = poll(&mut b, &waker).expect("second slot");
        // d polls before c but must not jump the queue.
        assert!(poll(&mut d, &waker).is_none());
        assert!(poll(&mut c, &waker).is_none());
        assert_eq!((l.in_use(), l.waiting()), (2, 2));
        drop(pa);
        assert!(
            counter.0.load(Ordering::SeqCst) >= 1,
            "a freed slot wakes the next"
        );
        assert!(poll(&mut d, &waker).is_none(), "c is first in line");
        let pc = poll(&mut c, &waker).expect("c gets the freed slot");
        drop((pb, pc));
        assert!(poll(&mut d, &waker).is_some());
        assert_eq!(l.waiting(), 0);
    }

    #[test]
    fn a_dropped_waiter_does_not_block_the_line_and_limits_can_grow() {
        let waker = Waker::from(Arc::new(CountingWaker(AtomicUsize::new(0))));
        let l = Limiter::new(1);
        let mut a = l.acquire();
        let _pa = poll(&mut a, &waker).unwrap();
        let mut b = l.acquire();
        let mut c = l.acquire();
        assert!(poll(&mut b, &waker).is_none());
        assert!(poll(&mut c, &waker).is_none());
        drop(b); // cancelled while waiting
        assert!(poll(&mut c, &waker).is_none(), "still full");
        l.set_limit(2);
        let pc = poll(&mut c, &waker);
        assert!(pc.is_some());
        assert_eq!(l.in_use(), 2);
        drop(pc);
        assert_eq!(l.in_use(), 1);
    }
}

//! A kernel whose first CTAs were read ahead for the online analysis: it
//! hands the buffered CTAs out first, then goes on reading its source, so the
//! simulator sees the same CTA stream as without sampling.

use std::collections::VecDeque;

use warplab_trace::{Cta, KernelHeader, OpcodeTable};

use crate::source::KernelSource;

/// `inner` with the CTAs read ahead in front.
pub(crate) struct Lookahead {
    inner: Box<dyn KernelSource>,
    buffered: VecDeque<Cta>,
    /// How the read ahead ended early: `Ok(())` at the kernel's last CTA, the
    /// error otherwise; `None` while `inner` has more.
    ended: Option<Result<(), String>>,
}

impl Lookahead {
    /// Reads CTAs of `inner` while `more(read so far)` says so, calling
    /// `each` on every one.
    pub(crate) fn read(mut inner: Box<dyn KernelSource>, mut more: impl FnMut(&Cta, &OpcodeTable) -> bool) -> Self {
        let mut buffered = VecDeque::new();
        let mut ended = None;
        loop {
            let mut cta = Cta::default();
            match inner.next_cta(&mut cta) {
                Ok(true) => {
                    let go_on = more(&cta, inner.opcodes());
                    buffered.push_back(cta);
                    if !go_on {
                        break;
                    }
                }
                Ok(false) => {
                    ended = Some(Ok(()));
                    break;
                }
                Err(message) => {
                    ended = Some(Err(message));
                    break;
                }
            }
        }
        Self { inner, buffered, ended }
    }
}

impl KernelSource for Lookahead {
    fn header(&self) -> &KernelHeader {
        self.inner.header()
    }

    fn opcodes(&self) -> &OpcodeTable {
        self.inner.opcodes()
    }

    fn next_cta(&mut self, cta: &mut Cta) -> Result<bool, String> {
        if let Some(mut next) = self.buffered.pop_front() {
            std::mem::swap(cta, &mut next);
            return Ok(true);
        }
        match self.ended.take() {
            Some(Ok(())) => {
                self.ended = Some(Ok(()));
                Ok(false)
            }
            Some(Err(message)) => Err(message),
            None => self.inner.next_cta(cta),
        }
    }

    fn diagnostics(&self) -> Vec<String> {
        self.inner.diagnostics()
    }
}

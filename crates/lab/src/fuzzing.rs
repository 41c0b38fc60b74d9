//! The body of the `link_decoder` fuzz target in `fuzz/`, here so that the
//! fuzzer and the test that replays its corpus run the same code.

use crate::link::{MAX_LINK_BYTES, decode_link, encode_link};

/// Decodes `data` as link text (lossy UTF-8). A refusal must be a one-line
/// message; an accepted experiment must validate, and encode to a link
/// that decodes to the same experiment. Returns whether it was accepted.
///
/// # Panics
/// When one of those properties fails: that is the fuzzer's finding.
pub fn link_decoder(data: &[u8]) -> bool {
    let text = String::from_utf8_lossy(data);
    match decode_link(&text) {
        Ok(experiment) => {
            assert_eq!(experiment.validate(), Ok(()));
            let link = encode_link(&experiment);
            if link.len() <= MAX_LINK_BYTES {
                assert_eq!(decode_link(&link).as_ref(), Ok(&experiment), "re-encoded: {link}");
            }
            true
        }
        Err(error) => {
            assert!(!error.to_string().contains('\n'), "one-line messages: {error}");
            false
        }
    }
}

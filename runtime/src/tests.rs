//! What the unit tests of several runtime modules share.

use super::*;

/// An upstream client whose requests the tests of several modules build and check.
pub(crate) fn upstream() -> Upstream {
    // Nothing listens there: a request that got sent would fail with a transport error.
    Upstream::new(
        "http://127.0.0.1:9/api",
        Vec::new(),
        UpstreamOptions::default(),
    )
    .expect("a valid base URL")
}

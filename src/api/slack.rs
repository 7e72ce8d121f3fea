//! `slack`, converted from JavaScript for the core, which reads it
//! (`ctxpack_core::budget::resolve_slack`).

use crate::convert::Options;
use crate::CtxpackError;
use ctxpack_core::budget::SlackOption;

/// The `slack` option of `opts`: absent (or `true`), `false`, or an object
/// whose numbers are converted as they are.
pub(crate) fn slack_option(opts: &Options) -> Result<SlackOption, CtxpackError> {
    match opts.get("slack").as_bool() {
        Some(false) => return Ok(SlackOption::Off),
        Some(true) => return Ok(SlackOption::Default),
        None => {}
    }
    Ok(match opts.object("slack")? {
        None => SlackOption::Default,
        Some(s) => SlackOption::Given {
            images: s.number("images")?,
            headroom: s.number("headroom")?,
        },
    })
}

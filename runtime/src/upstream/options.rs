//! How the server talks to the API ([`UpstreamOptions`]): timeouts, the largest answer it reads,
//! retries, and the servers of their own some operations have.

use std::time::Duration;

/// How the server talks to the API: timeouts, the largest answer it reads, and retries.
/// [`UpstreamOptions::args`] declares them on the command line, each also read from an
/// environment variable (see [`UpstreamOptions::read_env`]), and
/// [`UpstreamOptions::from_matches`] reads them back.
#[derive(Debug, Clone, PartialEq)]
pub struct UpstreamOptions {
    /// `--api-connect-timeout`: how long to wait for a connection to the API.
    pub api_connect_timeout: Duration,
    /// `--api-timeout`: how long one request to the API may take in all.
    pub api_timeout: Duration,
    /// `--api-max-response-bytes`: the largest answer from the API the server reads.
    pub api_max_response_bytes: usize,
    /// `--api-retries`: how often an idempotent request is tried again.
    pub api_retries: u32,
    /// `--api-max-retry-wait`: the longest the server waits in all between the tries of one
    /// request.
    pub api_max_retry_wait: Duration,
    /// `--api-max-pages`: the most pages of a list one call walks.
    pub api_max_pages: u32,
    /// Where the operations that the API serves at a server of their own are called (set by
    /// `main` from the environment, not the command line).
    pub servers: Vec<ServerRoute>,
    /// The base URL is not the API description's: the server then calls an operation's own
    /// server only where its variable says where that is (see [`ServerRoute`]).
    pub base_url_changed: bool,
}

/// A server of its own at which the API description says some operations are served (Box's
/// uploads at `https://upload.box.com/api/2.0`), and where the environment says it is instead.
/// While the base URL is the description's, those operations are called at `spec` unless
/// `configured` says otherwise. Once the base URL is changed (a staging API, a local mock), they
/// are called only where `configured` says: the server never sends the credentials meant for
/// the API it was pointed at to a host the user did not name.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerRoute {
    /// The server as the API description gives it.
    pub spec: &'static str,
    /// The environment variable that names where it is instead.
    pub env: &'static str,
    /// What that variable says.
    pub configured: Option<String>,
}

impl Default for UpstreamOptions {
    fn default() -> Self {
        Self {
            api_connect_timeout: Duration::from_secs(5),
            api_timeout: Duration::from_secs(30),
            api_max_response_bytes: 8 * 1024 * 1024,
            api_retries: 2,
            api_max_retry_wait: Duration::from_secs(10),
            api_max_pages: 100,
            servers: Vec::new(),
            base_url_changed: false,
        }
    }
}

impl UpstreamOptions {
    /// The ids of the options, which are also their field names.
    const IDS: [&'static str; 6] = [
        "api_connect_timeout",
        "api_timeout",
        "api_max_response_bytes",
        "api_retries",
        "api_max_retry_wait",
        "api_max_pages",
    ];

    /// `command` with these options. Written with clap's builder rather than its derive, which
    /// would add clap_derive and heck to every server's build (BENCHMARKS.md, issue 26).
    pub fn args(command: clap::Command) -> clap::Command {
        use clap::{Arg, ArgAction, value_parser};
        command
            .arg(
                Arg::new("api_connect_timeout")
                    .long("api-connect-timeout")
                    .help("Seconds to wait for a connection to the API")
                    .value_name("SECONDS")
                    .default_value("5")
                    .value_parser(parse_seconds)
                    .action(ArgAction::Set),
            )
            .arg(
                Arg::new("api_timeout")
                    .long("api-timeout")
                    .help("Seconds one request to the API may take in all, its answer included")
                    .value_name("SECONDS")
                    .default_value("30")
                    .value_parser(parse_seconds)
                    .action(ArgAction::Set),
            )
            .arg(
                Arg::new("api_max_response_bytes")
                    .long("api-max-response-bytes")
                    .help(
                        "The largest answer from the API the server reads, in bytes; a larger \
                         one is refused",
                    )
                    .value_name("BYTES")
                    .default_value((8 * 1024 * 1024).to_string())
                    .value_parser(value_parser!(usize))
                    .action(ArgAction::Set),
            )
            .arg(
                Arg::new("api_retries")
                    .long("api-retries")
                    .help(
                        "How often a GET, HEAD, PUT, DELETE or OPTIONS request is tried again \
                         after a failed connection, HTTP 429 or HTTP 5xx. Other requests are \
                         never repeated",
                    )
                    .value_name("COUNT")
                    .default_value("2")
                    .value_parser(value_parser!(u32))
                    .action(ArgAction::Set),
            )
            .arg(
                Arg::new("api_max_retry_wait")
                    .long("api-max-retry-wait")
                    .help(
                        "The longest the server waits in all between the tries of one request, \
                         in seconds; an API that asks (`Retry-After`) for a longer wait gets no \
                         further try",
                    )
                    .value_name("SECONDS")
                    .default_value("10")
                    .value_parser(parse_seconds)
                    .action(ArgAction::Set),
            )
            .arg(
                Arg::new("api_max_pages")
                    .long("api-max-pages")
                    .help(
                        "The most pages of a list one call walks; a tool's own bound (from the \
                         curation file) applies as well",
                    )
                    .value_name("COUNT")
                    .default_value("100")
                    .value_parser(value_parser!(u32).range(1..))
                    .action(ArgAction::Set),
            )
    }

    /// The options as `matches` (of a command with [`UpstreamOptions::args`]) gives them; no
    /// [`ServerRoute`], the base URL the description's.
    pub fn from_matches(matches: &clap::ArgMatches) -> Self {
        Self {
            api_connect_timeout: defaulted(matches, "api_connect_timeout"),
            api_timeout: defaulted(matches, "api_timeout"),
            api_max_response_bytes: defaulted(matches, "api_max_response_bytes"),
            api_retries: defaulted(matches, "api_retries"),
            api_max_retry_wait: defaulted(matches, "api_max_retry_wait"),
            api_max_pages: defaulted(matches, "api_max_pages"),
            servers: Vec::new(),
            base_url_changed: false,
        }
    }

    /// `command` with each of these options also read from the environment variable
    /// `{prefix}_{OPTION}`: `TRACKER_API_TIMEOUT` for `--api-timeout` with prefix `TRACKER`.
    pub fn read_env(command: clap::Command, prefix: &str) -> clap::Command {
        Self::IDS.into_iter().fold(command, |command, id| {
            let variable = format!("{prefix}_{}", id.to_ascii_uppercase());
            command.mut_arg(id, |arg| arg.env(variable))
        })
    }
}

/// The value of the option `id` in `matches`, which it always has: a default value if not given.
pub(crate) fn defaulted<T: Clone + Send + Sync + 'static>(
    matches: &clap::ArgMatches,
    id: &str,
) -> T {
    matches
        .get_one::<T>(id)
        .cloned()
        .unwrap_or_else(|| panic!("the option {id} has a default value"))
}

/// A positive number of seconds, such as `5` or `0.5`.
pub(crate) fn parse_seconds(text: &str) -> Result<Duration, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|seconds| seconds.is_finite() && *seconds > 0.0 && *seconds <= 86_400.0)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| format!("{text:?} is not a number of seconds from 0.001 to 86400"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command() -> clap::Command {
        UpstreamOptions::args(clap::Command::new("server"))
    }

    #[test]
    fn the_upstream_defaults_are_those_of_an_empty_command_line() {
        let matches = command().try_get_matches_from(["server"]).expect("parses");
        assert_eq!(
            UpstreamOptions::from_matches(&matches),
            UpstreamOptions::default()
        );
    }

    #[test]
    fn every_upstream_option_is_read_from_the_command_line() {
        let matches = command()
            .try_get_matches_from([
                "server",
                "--api-connect-timeout",
                "1.5",
                "--api-timeout",
                "0.5",
                "--api-max-response-bytes",
                "1000",
                "--api-retries",
                "0",
                "--api-max-retry-wait",
                "3",
                "--api-max-pages",
                "7",
            ])
            .expect("parses");
        assert_eq!(
            UpstreamOptions::from_matches(&matches),
            UpstreamOptions {
                api_connect_timeout: Duration::from_millis(1500),
                api_timeout: Duration::from_millis(500),
                api_max_response_bytes: 1000,
                api_retries: 0,
                api_max_retry_wait: Duration::from_secs(3),
                api_max_pages: 7,
                ..UpstreamOptions::default()
            }
        );
        for refused in [["--api-max-pages", "0"], ["--api-timeout", "soon"]] {
            let error = command()
                .try_get_matches_from(["server", refused[0], refused[1]])
                .expect_err("refused");
            assert_eq!(error.kind(), clap::error::ErrorKind::ValueValidation);
        }
    }

    #[test]
    fn every_upstream_option_is_also_read_from_the_environment() {
        let command = UpstreamOptions::read_env(command(), "RUNTIME_TEST");
        let variables: Vec<String> = command
            .get_arguments()
            .filter_map(|arg| arg.get_env().map(|env| env.to_string_lossy().into_owned()))
            .collect();
        assert_eq!(
            variables,
            [
                "RUNTIME_TEST_API_CONNECT_TIMEOUT",
                "RUNTIME_TEST_API_TIMEOUT",
                "RUNTIME_TEST_API_MAX_RESPONSE_BYTES",
                "RUNTIME_TEST_API_RETRIES",
                "RUNTIME_TEST_API_MAX_RETRY_WAIT",
                "RUNTIME_TEST_API_MAX_PAGES",
            ]
        );
        let matches = command
            .try_get_matches_from(["server", "--api-timeout", "0.5"])
            .expect("parses");
        let options = UpstreamOptions::from_matches(&matches);
        assert_eq!(options.api_timeout, Duration::from_millis(500));
        assert!(parse_seconds("0").is_err() && parse_seconds("soon").is_err());
    }
}

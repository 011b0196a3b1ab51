//! The fixed data a fresh server starts with, and the deterministic identifiers of every
//! resource.
//!
//! Nothing here depends on randomness or the clock, so every fresh server holds exactly
//! the same data:
//!
//! * ids are UUID v5 in the URL namespace of `https://api.tracker.example/v2/…`:
//!   `projects/WEB`, `users/alice`, `issues/WEB-42`, `transitions/1-2` (from state 1 to 2);
//! * projects WEB, API, MOBILE; users alice, bob, carol; their tokens are `<username>-token`;
//! * WEB has issues WEB-1 to WEB-130, API has API-1 to API-6, MOBILE has MOBILE-1 to
//!   MOBILE-4; issue N of a project was created at 2026-01-01T00:00:00Z plus N hours;
//! * WEB-N has state `[open, open, in progress, done, done][N % 5]`, priority
//!   `[low, medium, high][N % 3]` and assignee `[none, alice, bob, carol][N % 4]`, so every
//!   combination occurs (alice has 14 open WEB issues); its reporter, like that of every
//!   seeded issue, is `[alice, bob, carol][N % 3]`;
//! * WEB's titles combine 26 topics (`(N - 1) % 26`) with 5 contexts (`(N - 1) / 26`:
//!   none, Safari, mobile, Firefox, staging), so all 130 differ; 20 mention "login";
//! * a seeded issue was last updated when created (open), 2 hours later (in progress) or
//!   26 hours later (done);
//! * transitions are global per (from, to) pair: "Start progress" 1→2, "Resolve" 1→3 and
//!   2→3, "Stop progress" 2→1, "Reopen" 3→1, "Reopen and start progress" 3→2.

use uuid::Uuid;

use crate::model::{Issue, Priority, Project, State, Timestamp, User};

/// The prefix of the names from which ids are derived.
const ID_NAME_PREFIX: &str = "https://api.tracker.example/v2/";

fn derived_id(name: &str) -> Uuid {
    Uuid::new_v5(
        &Uuid::NAMESPACE_URL,
        format!("{ID_NAME_PREFIX}{name}").as_bytes(),
    )
}

/// The id of the project with this key.
pub fn project_id(key: &str) -> Uuid {
    derived_id(&format!("projects/{key}"))
}

/// The id of the user with this username.
pub fn user_id(username: &str) -> Uuid {
    derived_id(&format!("users/{username}"))
}

/// The id of the issue with this key, for example `WEB-42`.
pub fn issue_id(key: &str) -> Uuid {
    derived_id(&format!("issues/{key}"))
}

/// The id of the transition from one state to another; the same for every issue.
pub fn transition_id(from: State, to: State) -> Uuid {
    derived_id(&format!("transitions/{}-{}", from.code(), to.code()))
}

/// The name of the transition from one state to another.
pub fn transition_name(from: State, to: State) -> &'static str {
    match (from, to) {
        (State::Open, State::InProgress) => "Start progress",
        (State::Open | State::InProgress, State::Done) => "Resolve",
        (State::InProgress, State::Open) => "Stop progress",
        (State::Done, State::Open) => "Reopen",
        (State::Done, State::InProgress) => "Reopen and start progress",
        // No transition keeps the state; the name is never shown.
        (State::Open, State::Open)
        | (State::InProgress, State::InProgress)
        | (State::Done, State::Done) => "Keep state",
    }
}

/// The projects, in creation order.
pub fn projects() -> Vec<Project> {
    [
        (
            "WEB",
            "Website",
            "Public website and web shop: storefront, checkout and customer accounts.",
        ),
        (
            "API",
            "Public API",
            "The public REST API used by partners and by the mobile app.",
        ),
        ("MOBILE", "Mobile app", "The iOS and Android shopping app."),
    ]
    .into_iter()
    .map(|(key, name, description)| Project {
        id: project_id(key),
        key: key.to_owned(),
        name: name.to_owned(),
        description: description.to_owned(),
    })
    .collect()
}

/// The users, in creation order.
pub fn users() -> Vec<User> {
    [
        ("alice", "Alice Martin"),
        ("bob", "Bob Chen"),
        ("carol", "Carol Diaz"),
    ]
    .into_iter()
    .map(|(username, display_name)| User {
        id: user_id(username),
        username: username.to_owned(),
        display_name: display_name.to_owned(),
        email: format!("{username}@tracker.example"),
    })
    .collect()
}

/// The bearer token of a user.
pub fn token_of(username: &str) -> String {
    format!("{username}-token")
}

/// Number of seeded issues in WEB.
pub const WEB_ISSUE_COUNT: u32 = 130;

/// What a seeded issue is about: title, description and labels.
struct Topic {
    title: &'static str,
    description: &'static str,
    labels: &'static [&'static str],
}

/// The 26 topics of WEB's issues; WEB-N is about topic `(N - 1) % 26`.
const WEB_TOPICS: [Topic; 26] = [
    Topic {
        title: "Login form rejects valid passwords",
        description: "Customers with correct credentials see \"Invalid password\" on the login form. Passwords containing a '+' seem to be affected.",
        labels: &["bug", "auth"],
    },
    Topic {
        title: "Checkout timeout when paying by card",
        description: "The payment step of the checkout spins for 30 seconds and then fails with a gateway timeout. The card is sometimes charged anyway.",
        labels: &["bug", "checkout", "payments"],
    },
    Topic {
        title: "Add dark mode to the settings page",
        description: "Let customers switch the whole site to a dark theme from their account settings; remember the choice per account.",
        labels: &["feature", "ui"],
    },
    Topic {
        title: "Password reset email never arrives",
        description: "The password reset email is not delivered for addresses at some providers. The mail log shows the message as deferred.",
        labels: &["bug", "auth", "email"],
    },
    Topic {
        title: "Search results ignore accents",
        description: "Searching for \"creme\" does not find \"crème brûlée\". Normalise accents when indexing products.",
        labels: &["bug", "search"],
    },
    Topic {
        title: "Broken images in the product gallery",
        description: "Thumbnails in the product gallery show a broken image icon after the switch to the new image paths.",
        labels: &["bug", "ui"],
    },
    Topic {
        title: "Cart total shows the wrong currency",
        description: "Customers browsing the Swiss store see the cart total in euros while the line items are in francs.",
        labels: &["bug", "checkout"],
    },
    Topic {
        title: "Session expires too early",
        description: "Customers are signed out after five minutes of inactivity and have to go through login again; the session should last 30 minutes.",
        labels: &["bug", "auth"],
    },
    Topic {
        title: "Improve load time of the home page",
        description: "The home page takes 4.2 s to become interactive. Lazy-load the carousel and defer the chat widget.",
        labels: &["performance"],
    },
    Topic {
        title: "Newsletter signup accepts invalid emails",
        description: "The newsletter form accepts addresses without a domain, which then bounce.",
        labels: &["bug", "forms"],
    },
    Topic {
        title: "Footer links point to the old blog",
        description: "The \"News\" and \"Careers\" links in the footer still go to blog.example.com, which redirects to a 404 page.",
        labels: &["bug", "content"],
    },
    Topic {
        title: "Add two-factor authentication to login",
        description: "Offer optional TOTP-based two-factor authentication on login for customer accounts.",
        labels: &["feature", "auth", "security"],
    },
    Topic {
        title: "Checkout button hidden on small screens",
        description: "On screens narrower than 360 px the \"Pay now\" button is pushed below the cookie banner and cannot be tapped.",
        labels: &["bug", "checkout", "ui"],
    },
    Topic {
        title: "Order history page times out",
        description: "Customers with more than 200 orders get a timeout on the order history page; the query is not paginated.",
        labels: &["bug", "performance"],
    },
    Topic {
        title: "Translate the pricing page into German",
        description: "The pricing page is the last page of the site without a German version.",
        labels: &["feature", "i18n"],
    },
    Topic {
        title: "Cookie banner covers the navigation",
        description: "The cookie banner is drawn above the top navigation, so the menu cannot be clicked until the banner is dismissed.",
        labels: &["bug", "ui"],
    },
    Topic {
        title: "Sitemap misses the new product pages",
        description: "sitemap.xml is generated from the old catalogue and lists none of the products added this year.",
        labels: &["bug", "seo"],
    },
    Topic {
        title: "Coupon codes are case-sensitive",
        description: "\"SPRING10\" works at checkout but \"spring10\" is rejected as invalid. Coupon codes should ignore case.",
        labels: &["bug", "checkout"],
    },
    Topic {
        title: "Avatar upload fails for PNG files",
        description: "Uploading a PNG profile picture fails with \"unsupported format\"; JPEG works.",
        labels: &["bug", "accounts"],
    },
    Topic {
        title: "Add keyboard navigation to the main menu",
        description: "The main menu cannot be opened with the keyboard. Support Tab, Enter and the arrow keys.",
        labels: &["feature", "accessibility"],
    },
    Topic {
        title: "Contact form sends duplicate messages",
        description: "Double-clicking \"Send\" on the contact form sends the message twice. Disable the button while the request is pending.",
        labels: &["bug", "forms"],
    },
    Topic {
        title: "Google sign-in shows a blank page",
        description: "After choosing an account in the Google popup, the login callback page stays blank and the customer is not signed in.",
        labels: &["bug", "auth"],
    },
    Topic {
        title: "Image CDN timeout on product pages",
        description: "Product pages wait for the image CDN, which sometimes hits a 10 s timeout. Add a fallback origin.",
        labels: &["bug", "performance"],
    },
    Topic {
        title: "Accessibility audit of the checkout flow",
        description: "Run an audit of the checkout against WCAG 2.2 AA and file an issue for every finding.",
        labels: &["task", "accessibility", "checkout"],
    },
    Topic {
        title: "Update the privacy policy page",
        description: "Legal sent a new version of the privacy policy; publish it and update the \"last changed\" date.",
        labels: &["task", "content"],
    },
    Topic {
        title: "Track checkout abandonment in analytics",
        description: "Send an analytics event for every checkout step so that we can see where customers give up.",
        labels: &["feature", "analytics", "checkout"],
    },
];

/// Where WEB-N was seen: WEB-1..26 have no context, WEB-27..52 the first one, and so on.
const WEB_CONTEXTS: [Option<(&str, &str)>; 5] = [
    None,
    Some(("Safari", "Reported by a customer using Safari 17 on macOS.")),
    Some(("mobile", "Seen on phones only; desktop browsers are fine.")),
    Some(("Firefox", "Reproduced in Firefox 128 with a clean profile.")),
    Some(("staging", "So far only seen on the staging environment.")),
];

/// The assignees of WEB's issues, by `N % 4`.
const WEB_ASSIGNEES: [Option<&str>; 4] = [None, Some("alice"), Some("bob"), Some("carol")];

/// The states of WEB's issues, by `N % 5`: 40 % open, 20 % in progress, 40 % done.
const WEB_STATES: [State; 5] = [
    State::Open,
    State::Open,
    State::InProgress,
    State::Done,
    State::Done,
];

/// The priorities of WEB's issues, by `N % 3`.
const WEB_PRIORITIES: [Priority; 3] = [Priority::Low, Priority::Medium, Priority::High];

/// The reporters of every seeded issue, by `N % 3`.
const REPORTERS: [&str; 3] = ["alice", "bob", "carol"];

/// A seeded issue before it gets its id, key and timestamps.
struct SeedIssue {
    title: String,
    description: String,
    state: State,
    priority: Priority,
    assignee: Option<&'static str>,
    labels: Vec<String>,
}

/// WEB-`number`: topic `(N - 1) % 26`, context `(N - 1) / 26`, state `WEB_STATES[N % 5]`,
/// priority `WEB_PRIORITIES[N % 3]`, assignee `WEB_ASSIGNEES[N % 4]`.
fn web_issue(number: u32) -> SeedIssue {
    let n = number as usize;
    let topic = &WEB_TOPICS[(n - 1) % WEB_TOPICS.len()];
    let context = WEB_CONTEXTS[(n - 1) / WEB_TOPICS.len() % WEB_CONTEXTS.len()];
    let (title, description) = match context {
        None => (topic.title.to_owned(), topic.description.to_owned()),
        Some((place, note)) => (
            format!("{} ({place})", topic.title),
            format!("{} {note}", topic.description),
        ),
    };
    SeedIssue {
        title,
        description,
        state: WEB_STATES[n % WEB_STATES.len()],
        priority: WEB_PRIORITIES[n % WEB_PRIORITIES.len()],
        assignee: WEB_ASSIGNEES[n % WEB_ASSIGNEES.len()],
        labels: topic.labels.iter().map(|&label| label.to_owned()).collect(),
    }
}

/// A hand-written seeded issue of API or MOBILE.
fn listed_issue(
    title: &str,
    description: &str,
    state: State,
    priority: Priority,
    assignee: Option<&'static str>,
    labels: &[&str],
) -> SeedIssue {
    SeedIssue {
        title: title.to_owned(),
        description: description.to_owned(),
        state,
        priority,
        assignee,
        labels: labels.iter().map(|&label| label.to_owned()).collect(),
    }
}

fn api_issues() -> Vec<SeedIssue> {
    use Priority::{High, Low, Medium};
    use State::{Done, InProgress, Open};
    vec![
        listed_issue(
            "Rate limit headers missing on 429 responses",
            "Responses with status 429 do not carry X-RateLimit-Reset, so clients cannot tell when to retry.",
            Done,
            Medium,
            Some("bob"),
            &["bug"],
        ),
        listed_issue(
            "Document pagination of the issues endpoint",
            "The reference does not say that page numbers start at 1 or that per_page is capped at 50.",
            Done,
            Low,
            Some("carol"),
            &["docs"],
        ),
        listed_issue(
            "Webhook retries ignore exponential backoff",
            "Failed webhook deliveries are retried every second instead of with exponential backoff.",
            InProgress,
            High,
            Some("bob"),
            &["bug", "webhooks"],
        ),
        listed_issue(
            "OAuth token refresh returns 500",
            "Refreshing an access token whose refresh token was rotated returns 500 instead of 400 invalid_grant.",
            Open,
            High,
            Some("alice"),
            &["bug", "auth"],
        ),
        listed_issue(
            "Add ETag support to the project listing",
            "Return an ETag on GET /v2/projects and answer 304 to If-None-Match so that clients can cache it.",
            Open,
            Low,
            None,
            &["feature"],
        ),
        listed_issue(
            "Bulk export hits the gateway timeout for large projects",
            "Exporting a project with more than 10,000 issues runs into the 60 s gateway timeout. Make the export asynchronous.",
            Open,
            Medium,
            Some("carol"),
            &["bug", "performance"],
        ),
    ]
}

fn mobile_issues() -> Vec<SeedIssue> {
    use Priority::{High, Low, Medium};
    use State::{Done, InProgress, Open};
    vec![
        listed_issue(
            "App crashes on launch on Android 15",
            "The app closes immediately after the splash screen on Android 15 devices; the crash log points to the font loader.",
            InProgress,
            High,
            Some("carol"),
            &["bug", "android"],
        ),
        listed_issue(
            "Push notifications arrive twice",
            "Order status notifications are delivered twice on devices that reinstalled the app.",
            Open,
            Medium,
            Some("bob"),
            &["bug", "notifications"],
        ),
        listed_issue(
            "Login screen ignores the system dark mode",
            "The login screen stays light when the phone uses dark mode; every other screen follows the system setting.",
            Open,
            Low,
            None,
            &["bug", "ui"],
        ),
        listed_issue(
            "Offline mode loses draft reviews",
            "A product review written while offline is lost when the app goes back online.",
            Done,
            Medium,
            Some("alice"),
            &["bug", "offline"],
        ),
    ]
}

/// Every seeded issue of every project, ordered by project and then number.
pub fn issues() -> Vec<Issue> {
    let web = (1..=WEB_ISSUE_COUNT).map(web_issue).collect();
    [
        ("WEB", web),
        ("API", api_issues()),
        ("MOBILE", mobile_issues()),
    ]
    .into_iter()
    .flat_map(|(project_key, seeds)| {
        seeds
            .into_iter()
            .zip(1u32..)
            .map(move |(seed, number)| seeded_issue(project_key, number, seed))
    })
    .collect()
}

/// Turns a seed into an issue: created N hours after the seed epoch, last updated then
/// (open), 2 hours later (in progress) or 26 hours later (done).
fn seeded_issue(project_key: &str, number: u32, seed: SeedIssue) -> Issue {
    let key = format!("{project_key}-{number}");
    let created_at = Timestamp::SEED_EPOCH.plus_hours(i64::from(number));
    let updated_at = match seed.state {
        State::Open => created_at,
        State::InProgress => created_at.plus_hours(2),
        State::Done => created_at.plus_hours(26),
    };
    Issue {
        id: issue_id(&key),
        key,
        number,
        project_id: project_id(project_key),
        title: seed.title,
        description: seed.description,
        state: seed.state,
        priority: seed.priority,
        assignee_id: seed.assignee.map(user_id),
        reporter_id: user_id(REPORTERS[number as usize % REPORTERS.len()]),
        labels: seed.labels,
        created_at,
        updated_at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_the_documented_uuid_v5_scheme() {
        assert_eq!(
            project_id("WEB").to_string(),
            "01397d88-e45f-531a-abbd-1f79d5da3cbd"
        );
        assert_eq!(
            user_id("alice").to_string(),
            "a409aac6-e9a6-5a28-b24a-d38e17c6e37e"
        );
        assert_eq!(
            issue_id("WEB-42").to_string(),
            "129fbba7-e576-502d-94b9-35b3426581fd"
        );
        assert_eq!(
            transition_id(State::Open, State::InProgress).to_string(),
            "5f760437-3974-5a40-a3b3-15ed753473a8"
        );
    }

    #[test]
    fn project_issue_counts_are_130_6_and_4() {
        let issues = issues();
        let count = |key: &str| {
            issues
                .iter()
                .filter(|issue| issue.project_id == project_id(key))
                .count()
        };
        assert_eq!((count("WEB"), count("API"), count("MOBILE")), (130, 6, 4));
    }
}

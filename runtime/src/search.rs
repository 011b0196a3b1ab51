//! Ranked full-text search over the API's operations, for the discovery tools.
//!
//! mcpgen builds the index when it generates the crate ([`build`]): every operation's name,
//! summary, tags, path words, description, parameter names and the curation file's search words
//! are cut into stemmed terms ([`terms`]),
//! weighted per field and normalised for the field's length (BM25F), and written as a compact
//! inverted index. The server reads that text once ([`Index::parse`]) and ranks operations for a
//! query with the same [`terms`] ([`Index::search`]).
//!
//! mcpgen builds its index with this module and every crate with discovery tools searches with
//! it, so the index it writes and the ranking the server does cannot drift apart.

use std::collections::HashMap;
use std::fmt::Write as _;

/// The first line of an index, naming its format.
pub const FORMAT: &str = "mcpgen-search-index 1";

/// BM25's term-frequency saturation.
const K1: f64 = 4.0;
/// BM25's length normalisation.
const B: f64 = 0.6;

/// A term found with this weight (once in the name or the summary) covers its part of the
/// request; one found only in the description or the parameters covers less of it.
const COVERING_WEIGHT: f64 = 2.0;

/// How much more an operation whose name the request covers entirely scores.
const NAME_COVERAGE_WEIGHT: f64 = 1.0;

/// Words too common in requests to tell operations apart, and a request's filler ("what
/// channels exist here?", "does anyone currently …").
const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "also",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "for",
    "from",
    "has",
    "have",
    "how",
    "i",
    "in",
    "into",
    "is",
    "it",
    "its",
    "just",
    "me",
    "my",
    "of",
    "on",
    "or",
    "our",
    "please",
    "some",
    "that",
    "the",
    "their",
    "them",
    "there",
    "these",
    "they",
    "this",
    "those",
    "to",
    "under",
    "us",
    "want",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "who",
    "will",
    "with",
    "would",
    "you",
    "your",
    "exist",
    "exists",
    "existing",
    "here",
    "now",
    "currently",
    "anyone",
    "someone",
    "somebody",
    "whole",
    "need",
    "let",
    "tell",
    "know",
    "give",
    "right",
    // Politeness, which says nothing of what to do.
    "thanks",
    "thank",
    "thx",
    "pls",
    "plz",
    "kindly",
    "asap",
];

/// The fields of an operation that the index knows, with their weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Field {
    Name,
    Summary,
    Tags,
    Path,
    Description,
    Parameters,
    /// The curation file's search words for the operation.
    Curated,
    /// What the objects the operation takes and returns are, as their schemas describe them
    /// (Stripe's "A Transfer object is created when you move funds between Stripe accounts",
    /// Kubernetes' "SubjectAccessReview checks whether or not a user or group can perform an
    /// action"): words an operation's own summary leaves out.
    Schema,
    /// The initials of the words the name is made of (`pv` for `PersistentVolume`), which
    /// [`build`] adds.
    Initials,
}

impl Field {
    pub const ALL: [Field; 9] = [
        Field::Name,
        Field::Summary,
        Field::Tags,
        Field::Path,
        Field::Description,
        Field::Parameters,
        Field::Curated,
        Field::Schema,
        Field::Initials,
    ];

    /// How much a term found in this field counts.
    pub fn weight(self) -> f64 {
        match self {
            Field::Name => 3.0,
            Field::Summary => 3.0,
            Field::Tags => 1.5,
            Field::Path => 1.5,
            Field::Description => 0.6,
            Field::Parameters => 0.4,
            // An API owner's words for what the operation does count like its summary.
            Field::Curated => 3.0,
            Field::Schema => 0.5,
            Field::Initials => 2.0,
        }
    }
}

/// Words a request uses for what API descriptions say otherwise — REST verbs, common
/// abbreviations, and the user speaking of themselves — with the terms they stand for and how
/// much those count. The word itself then counts only [`LITERAL_WEIGHT`]: "show the details"
/// is about getting, not about operations that mention details.
const SYNONYMS: &[(&str, &[&str], f64)] = &[
    ("new", &["create"], 1.0),
    ("open", &["create"], 1.0),
    ("add", &["create"], 1.0),
    ("make", &["create"], 1.0),
    ("publish", &["create"], 1.0),
    ("start", &["create"], 1.0),
    ("put", &["add", "set"], 1.0),
    ("show", &["get"], 1.0),
    ("read", &["get"], 1.0),
    ("fetch", &["get"], 1.0),
    ("view", &["get"], 1.0),
    ("see", &["get"], 1.0),
    ("look", &["get"], 1.0),
    ("details", &["get"], 1.0),
    ("detail", &["get"], 1.0),
    ("info", &["get"], 1.0),
    ("retrieve", &["get"], 1.0),
    ("recent", &["list"], 1.0),
    ("all", &["list"], 1.0),
    ("browse", &["list"], 1.0),
    ("edit", &["update"], 1.0),
    ("change", &["update"], 1.0),
    ("modify", &["update"], 1.0),
    ("rename", &["update"], 1.0),
    ("close", &["update"], 1.0),
    ("fix", &["update"], 1.0),
    ("rid", &["delete"], 1.0),
    ("stop", &["cancel", "stop"], 1.0),
    ("abort", &["cancel"], 1.0),
    ("kill", &["cancel", "delete"], 1.0),
    ("restore", &["unarchive", "restore"], 1.0),
    ("remove", &["delete"], 1.0),
    ("erase", &["delete"], 1.0),
    ("destroy", &["delete"], 1.0),
    ("find", &["search", "list"], 1.0),
    ("store", &["create"], 1.0),
    ("save", &["create"], 1.0),
    ("record", &["create"], 1.0),
    ("dump", &["list"], 1.0),
    ("unlink", &["detach", "remove"], 1.0),
    ("detach", &["remove"], 1.0),
    ("grow", &["scale"], 1.0),
    ("shrink", &["scale"], 1.0),
    ("resize", &["scale"], 1.0),
    ("approve", &["review"], 1.0),
    ("react", &["reaction"], 1.0),
    ("remind", &["reminder"], 1.0),
    ("online", &["presence"], 1.0),
    ("away", &["presence"], 1.0),
    ("bump", &["increment"], 1.0),
    ("kick", &["remove"], 1.0),
    ("disable", &["disable", "end"], 1.0),
    ("lookup", &["get", "search"], 1.0),
    ("everywhere", &["all"], 1.0),
    ("every", &["all"], 0.7),
    ("across", &["all"], 0.7),
    ("tag", &["label", "topic"], 0.7),
    ("ask", &["request"], 1.0),
    ("trigger", &["dispatch", "run"], 1.0),
    ("launch", &["dispatch", "run", "create"], 1.0),
    ("dispatch", &["run", "trigger"], 0.7),
    ("move", &["transition", "transfer"], 0.7),
    ("retry", &["rerun"], 1.0),
    ("download", &["get"], 1.0),
    ("upload", &["create", "file"], 0.7),
    ("reply", &["comment", "thread"], 0.7),
    ("watch", &["subscription"], 0.7),
    ("subscribe", &["subscription"], 1.0),
    ("invite", &["invitation", "add"], 1.0),
    ("ban", &["block"], 1.0),
    ("void", &["cancel"], 0.7),
    ("copy", &["clone", "duplicate"], 1.0),
    ("duplicate", &["clone", "copy"], 1.0),
    ("notify", &["notification"], 1.0),
    ("display", &["get", "display"], 1.0),
    ("inspect", &["get"], 1.0),
    ("describe", &["get"], 1.0),
    ("check", &["get"], 0.7),
    ("grab", &["get"], 1.0),
    ("export", &["get", "download"], 1.0),
    ("enumerate", &["list"], 1.0),
    ("count", &["list"], 0.7),
    ("terminate", &["delete", "cancel"], 1.0),
    ("halt", &["stop", "cancel"], 1.0),
    ("drop", &["delete"], 1.0),
    ("purge", &["delete"], 1.0),
    ("wipe", &["delete"], 1.0),
    ("clear", &["delete"], 0.7),
    ("revoke", &["delete"], 0.7),
    ("unassign", &["remove", "assignee"], 1.0),
    ("grant", &["add", "create"], 1.0),
    ("enroll", &["create", "register"], 1.0),
    ("attach", &["add"], 1.0),
    ("adjust", &["update"], 1.0),
    ("tweak", &["update"], 1.0),
    ("alter", &["update"], 1.0),
    ("overwrite", &["update", "replace"], 1.0),
    ("replace", &["update"], 0.7),
    ("toggle", &["update", "enable"], 1.0),
    ("mark", &["update", "set"], 1.0),
    ("import", &["create"], 1.0),
    ("write", &["create", "update"], 0.7),
    ("pause", &["suspend"], 1.0),
    ("suspend", &["pause"], 1.0),
    ("unpause", &["resume"], 1.0),
    ("reboot", &["restart"], 1.0),
    ("revert", &["rollback"], 1.0),
    ("mute", &["snooze"], 0.7),
    ("bookmark", &["star", "pin"], 0.7),
    ("like", &["reaction", "star"], 0.7),
    ("favorite", &["star"], 1.0),
    ("favourite", &["star"], 1.0),
    ("cap", &["limit", "quota"], 0.7),
    ("throttle", &["limit", "rate"], 0.7),
    ("expose", &["public", "publish", "service"], 0.6),
    ("share", &["public", "access"], 0.6),
    ("undo", &["revert", "rollback"], 0.7),
    ("rollback", &["revert"], 0.7),
    ("silence", &["mute", "snooze"], 0.7),
    ("rotate", &["regenerate", "roll"], 0.7),
    ("activate", &["enable"], 1.0),
    ("deactivate", &["disable"], 1.0),
    ("verify", &["validate", "check"], 0.7),
    ("validate", &["verify", "check"], 0.7),
    ("resend", &["redeliver", "retry", "send"], 0.7),
    ("switch", &["update", "change"], 0.7),
    ("upgrade", &["update"], 0.7),
    ("downgrade", &["update"], 0.7),
    ("buy", &["order", "purchase"], 0.7),
    ("purchase", &["order", "buy"], 0.7),
    ("withdraw", &["payout"], 0.7),
    ("deposit", &["topup", "fund"], 0.7),
    ("reject", &["decline", "review"], 0.7),
    ("decline", &["reject", "cancel"], 0.7),
    ("accept", &["approve", "confirm"], 0.7),
    ("logout", &["revoke", "session"], 0.7),
    ("postpone", &["schedule", "snooze"], 0.7),
    ("delay", &["schedule", "snooze"], 0.7),
    ("defer", &["schedule"], 0.7),
    ("tomorrow", &["schedule"], 0.7),
    ("tonight", &["schedule"], 0.7),
    ("later", &["schedule"], 0.7),
    // Things that APIs name otherwise than people do.
    ("workspace", &["team", "organization"], NOUN_WEIGHT),
    ("project", &["repository"], NOUN_WEIGHT),
    ("ticket", &["issue"], NOUN_WEIGHT),
    ("bug", &["issue"], NOUN_WEIGHT),
    ("people", &["user", "member"], NOUN_WEIGHT),
    ("person", &["user", "member"], NOUN_WEIGHT),
    ("someone", &["user"], NOUN_WEIGHT),
    ("everyone", &["member", "user"], NOUN_WEIGHT),
    ("employee", &["user", "member"], NOUN_WEIGHT),
    ("account", &["user"], NOUN_WEIGHT),
    ("group", &["team"], NOUN_WEIGHT),
    ("room", &["channel", "conversation"], NOUN_WEIGHT),
    ("chat", &["conversation", "message"], NOUN_WEIGHT),
    ("dm", &["im", "direct", "conversation"], NOUN_WEIGHT),
    ("note", &["comment"], NOUN_WEIGHT),
    ("folder", &["directory"], NOUN_WEIGHT),
    ("doc", &["document"], NOUN_WEIGHT),
    ("docs", &["document"], NOUN_WEIGHT),
    ("config", &["configuration"], NOUN_WEIGHT),
    ("cert", &["certificate"], NOUN_WEIGHT),
    ("env", &["environment"], NOUN_WEIGHT),
    ("var", &["variable"], NOUN_WEIGHT),
    ("vars", &["variable"], NOUN_WEIGHT),
    ("stats", &["statistics"], NOUN_WEIGHT),
    ("app", &["application"], NOUN_WEIGHT),
    ("apps", &["application"], NOUN_WEIGHT),
    ("password", &["credential", "secret"], NOUN_WEIGHT),
    ("login", &["authentication", "session"], NOUN_WEIGHT),
    ("picture", &["photo", "image", "avatar"], NOUN_WEIGHT),
    ("photo", &["image", "avatar"], NOUN_WEIGHT),
    ("bill", &["invoice"], NOUN_WEIGHT),
    ("discount", &["coupon", "promotion"], NOUN_WEIGHT),
    ("promo", &["promotion", "coupon"], NOUN_WEIGHT),
    ("money", &["funds", "balance", "amount"], NOUN_WEIGHT),
    ("client", &["customer"], NOUN_WEIGHT),
    ("container", &["pod"], NOUN_WEIGHT),
    ("build", &["run", "workflow"], NOUN_WEIGHT),
    ("pipeline", &["workflow"], NOUN_WEIGHT),
    ("deploy", &["deployment"], NOUN_WEIGHT),
    ("setting", &["configuration", "preference"], NOUN_WEIGHT),
    ("settings", &["configuration", "preference"], NOUN_WEIGHT),
    (
        "permission",
        &["access", "role", "authorization"],
        NOUN_WEIGHT,
    ),
    (
        "permissions",
        &["access", "role", "authorization"],
        NOUN_WEIGHT,
    ),
    (
        "allowed",
        &["access", "authorization", "permission"],
        NOUN_WEIGHT,
    ),
    ("history", &["log", "event", "audit"], NOUN_WEIGHT),
    ("audit", &["log", "event"], NOUN_WEIGHT),
    ("usage", &["meter", "usage"], NOUN_WEIGHT),
    ("metered", &["meter", "usage"], NOUN_WEIGHT),
    ("receipt", &["invoice"], NOUN_WEIGHT),
    ("cpu", &["resource", "quota", "limit"], NOUN_WEIGHT),
    ("cpus", &["resource", "quota", "limit"], NOUN_WEIGHT),
    ("memory", &["resource", "quota", "limit"], NOUN_WEIGHT),
    ("machine", &["node", "host"], NOUN_WEIGHT),
    ("vm", &["node", "instance", "machine"], NOUN_WEIGHT),
    ("cron", &["cronjob", "schedule"], NOUN_WEIGHT),
    (
        "recurring",
        &["schedule", "cron", "subscription"],
        NOUN_WEIGHT,
    ),
    ("output", &["log"], NOUN_WEIGHT),
    ("traffic", &["ingress", "network", "service"], NOUN_WEIGHT),
    ("url", &["link", "uri"], NOUN_WEIGHT),
    ("link", &["url"], NOUN_WEIGHT),
    ("snippet", &["gist"], NOUN_WEIGHT),
    ("watchers", &["subscriber", "subscription"], NOUN_WEIGHT),
    ("contributor", &["collaborator", "member"], NOUN_WEIGHT),
    ("collaborator", &["member", "contributor"], NOUN_WEIGHT),
    ("teammate", &["member", "user"], NOUN_WEIGHT),
    ("inbox", &["notification"], NOUN_WEIGHT),
    ("unread", &["notification"], NOUN_WEIGHT),
    ("alert", &["notification", "alert"], NOUN_WEIGHT),
    ("callback", &["webhook", "hook"], NOUN_WEIGHT),
    ("hook", &["webhook"], NOUN_WEIGHT),
    ("production", &["environment"], NOUN_WEIGHT),
    ("staging", &["environment"], NOUN_WEIGHT),
    ("diff", &["compare", "commit"], NOUN_WEIGHT),
    ("child", &["sub"], NOUN_WEIGHT),
    ("children", &["sub"], NOUN_WEIGHT),
    ("nested", &["sub"], NOUN_WEIGHT),
    ("emoji", &["reaction"], NOUN_WEIGHT),
    ("whoami", &["authenticated", "current"], 1.0),
    ("repo", &["repository"], 1.0),
    ("repos", &["repository"], 1.0),
    ("repository", &["repo"], 1.0),
    ("repositories", &["repo"], 1.0),
    ("org", &["organization"], 1.0),
    ("orgs", &["organization"], 1.0),
    ("organization", &["org"], 1.0),
    ("organizations", &["org"], 1.0),
    ("pr", &["pull", "request"], 1.0),
    ("prs", &["pull", "request"], 1.0),
    ("logged", &["authenticated"], 1.0),
    ("signed", &["authenticated"], 1.0),
    ("me", &["authenticated", "current"], FIRST_PERSON_WEIGHT),
    ("my", &["authenticated", "current"], FIRST_PERSON_WEIGHT),
    ("i", &["authenticated", "current"], FIRST_PERSON_WEIGHT),
    ("mine", &["authenticated", "current"], FIRST_PERSON_WEIGHT),
    ("myself", &["authenticated", "current"], FIRST_PERSON_WEIGHT),
];

/// More words of general English for what APIs do and hold, written from no request.
const MORE_SYNONYMS: &[(&str, &[&str], f64)] = &[
    ("provision", &["create"], 1.0),
    ("establish", &["create"], 1.0),
    ("draft", &["create", "draft"], 0.7),
    ("compose", &["create", "message"], 0.7),
    ("define", &["create"], 0.7),
    ("allocate", &["create"], 0.7),
    ("initiate", &["create", "start"], 1.0),
    ("begin", &["start", "create"], 1.0),
    ("spawn", &["create"], 1.0),
    ("instantiate", &["create"], 1.0),
    ("construct", &["create"], 1.0),
    ("peek", &["get"], 1.0),
    ("obtain", &["get"], 1.0),
    ("examine", &["get"], 1.0),
    ("query", &["search", "list"], 0.7),
    ("print", &["get"], 0.7),
    ("overview", &["list", "summary"], 0.7),
    ("inventory", &["list"], 0.7),
    ("rewrite", &["update"], 1.0),
    ("amend", &["update"], 1.0),
    ("revise", &["update"], 1.0),
    ("reconfigure", &["update", "configuration"], 1.0),
    ("customize", &["update"], 0.7),
    ("customise", &["update"], 0.7),
    ("reassign", &["update", "assign"], 0.7),
    ("reopen", &["update", "open"], 0.7),
    ("increase", &["update", "increment"], 0.7),
    ("raise", &["update", "increment"], 0.7),
    ("decrease", &["update", "decrement"], 0.7),
    ("reduce", &["update", "decrement"], 0.7),
    ("nuke", &["delete"], 1.0),
    ("scrap", &["delete"], 1.0),
    ("ditch", &["delete"], 1.0),
    ("trash", &["delete"], 1.0),
    ("discard", &["delete"], 1.0),
    ("eliminate", &["delete"], 1.0),
    ("deregister", &["delete", "unregister"], 1.0),
    ("unregister", &["delete"], 1.0),
    ("uninstall", &["delete"], 1.0),
    ("decommission", &["delete"], 1.0),
    ("retire", &["delete", "archive"], 0.7),
    ("prune", &["delete"], 0.7),
    ("locate", &["search", "get"], 1.0),
    ("seek", &["search"], 1.0),
    ("unfollow", &["delete", "follow"], 1.0),
    ("unstar", &["delete", "star"], 1.0),
    ("unwatch", &["delete", "subscription"], 1.0),
    ("unsubscribe", &["delete", "subscription"], 1.0),
    ("hide", &["update", "hide"], 0.7),
    ("credentials", &["secret", "key", "token"], NOUN_WEIGHT),
    ("credential", &["secret", "key", "token"], NOUN_WEIGHT),
    ("error", &["failure", "fail"], NOUN_WEIGHT),
    ("errors", &["failure", "fail"], NOUN_WEIGHT),
    ("crash", &["failure", "fail"], NOUN_WEIGHT),
    ("cost", &["price", "amount"], NOUN_WEIGHT),
    ("costs", &["price", "amount"], NOUN_WEIGHT),
    ("spend", &["usage", "amount"], NOUN_WEIGHT),
    ("spending", &["usage", "amount"], NOUN_WEIGHT),
    ("earnings", &["balance", "payout"], NOUN_WEIGHT),
    ("revenue", &["balance", "payment"], NOUN_WEIGHT),
    ("buyer", &["customer"], NOUN_WEIGHT),
    ("shopper", &["customer"], NOUN_WEIGHT),
    ("merchant", &["account"], NOUN_WEIGHT),
    ("sale", &["charge", "payment"], NOUN_WEIGHT),
    ("sales", &["charge", "payment"], NOUN_WEIGHT),
    ("chargeback", &["dispute"], NOUN_WEIGHT),
    ("subscriber", &["subscription", "customer"], NOUN_WEIGHT),
    ("cart", &["checkout", "session"], NOUN_WEIGHT),
    ("staff", &["member", "user"], NOUN_WEIGHT),
    ("admin", &["administrator", "owner"], NOUN_WEIGHT),
    ("attachment", &["file"], NOUN_WEIGHT),
    ("screenshot", &["image", "file"], NOUN_WEIGHT),
    ("category", &["label", "type"], NOUN_WEIGHT),
    ("changelog", &["release", "note"], NOUN_WEIGHT),
    ("activity", &["event", "log"], NOUN_WEIGHT),
    ("metrics", &["statistics", "usage", "metric"], NOUN_WEIGHT),
    ("storage", &["volume", "disk"], NOUN_WEIGHT),
    ("server", &["node", "host", "instance"], NOUN_WEIGHT),
    // Paraphrases of the verbs API summaries use.
    ("insert", &["add", "create"], 1.0),
    ("okay", &["approve"], 0.7),
    ("greenlight", &["approve"], 1.0),
    ("lgtm", &["approve", "review"], 1.0),
    ("ignore", &["dismiss"], 0.7),
    ("recover", &["restore", "unarchive"], 1.0),
    ("undelete", &["restore", "unarchive"], 1.0),
    ("shelve", &["archive"], 1.0),
    ("finish", &["finalize", "complete"], 0.7),
    ("complete", &["finalize", "complete"], 0.7),
    ("nullify", &["void", "cancel"], 1.0),
    ("invalidate", &["void", "expire", "revoke"], 0.7),
    ("replay", &["redeliver", "rerun"], 0.7),
    ("freeze", &["lock", "suspend"], 0.7),
    ("unfreeze", &["unlock", "unsuspend"], 0.7),
    ("reinstate", &["reactivate", "unsuspend", "restore"], 1.0),
    ("unban", &["unblock"], 1.0),
    ("reenable", &["enable", "reactivate"], 1.0),
    ("fork", &["fork"], 1.0),
    ("combine", &["merge"], 0.7),
    ("squash", &["merge"], 0.7),
    ("backup", &["export", "download"], 0.7),
    ("retitle", &["rename", "update"], 1.0),
    ("relabel", &["label", "update"], 0.7),
    ("censor", &["redact"], 1.0),
    ("mask", &["redact"], 0.7),
    ("scrub", &["redact", "delete"], 0.7),
    ("synchronize", &["sync"], 1.0),
    ("preview", &["render", "preview"], 0.7),
    ("reorder", &["reprioritize", "position"], 0.7),
    ("reinitialize", &["reset"], 1.0),
    ("refuse", &["deny", "decline", "reject"], 1.0),
    ("queue", &["schedule"], 0.6),
    ("book", &["schedule", "reserve"], 0.6),
    ("ping", &["ping", "test"], 0.7),
    // Kubernetes' words for what kubectl users say.
    ("drain", &["eviction", "evict"], 0.7),
    ("evict", &["eviction"], 1.0),
    ("debug", &["ephemeral", "debug"], 0.6),
    ("firewall", &["network", "policy"], 0.6),
    ("autoscale", &["autoscaler", "scale"], 1.0),
    ("autoscaling", &["autoscaler", "scale"], 1.0),
    ("leader", &["lease"], 0.6),
    ("shell", &["exec"], 0.7),
    ("ssh", &["exec"], 0.6),
    // Abbreviations people write for what APIs spell out.
    ("ns", &["namespace"], 1.0),
    ("svc", &["service"], 1.0),
    ("svcs", &["service"], 1.0),
    ("cm", &["configmap"], 1.0),
    ("sa", &["serviceaccount"], 1.0),
    ("sts", &["statefulset"], 1.0),
    ("ds", &["daemonset"], 1.0),
    ("rs", &["replicaset"], 1.0),
    ("netpol", &["networkpolicy"], 1.0),
    ("cj", &["cronjob"], 1.0),
    ("ci", &["workflow", "check"], NOUN_WEIGHT),
    ("gh", &["github"], 1.0),
    ("txn", &["transaction"], 1.0),
    ("txns", &["transaction"], 1.0),
    ("acct", &["account"], 1.0),
    ("inv", &["invoice"], NOUN_WEIGHT),
    ("qty", &["quantity"], 1.0),
    ("amt", &["amount"], 1.0),
    ("msg", &["message"], 1.0),
    ("msgs", &["message"], 1.0),
    ("convo", &["conversation"], 1.0),
    ("convos", &["conversation"], 1.0),
    ("chan", &["channel"], 1.0),
    ("desc", &["description"], 1.0),
    ("auth", &["authentication", "authorization"], NOUN_WEIGHT),
    ("perm", &["permission"], 1.0),
    ("perms", &["permission"], 1.0),
    ("prefs", &["preference"], 1.0),
    ("pref", &["preference"], 1.0),
    ("notif", &["notification"], 1.0),
    ("notifs", &["notification"], 1.0),
    ("addr", &["address"], 1.0),
    ("img", &["image"], 1.0),
    ("pic", &["image", "photo", "avatar"], NOUN_WEIGHT),
    ("pics", &["image", "photo", "avatar"], NOUN_WEIGHT),
    ("spec", &["specification"], NOUN_WEIGHT),
    ("cfg", &["configuration", "config"], 1.0),
    ("db", &["database"], 1.0),
    ("dir", &["directory"], 1.0),
    ("params", &["parameter"], 1.0),
    ("param", &["parameter"], 1.0),
    ("attr", &["attribute"], 1.0),
    ("attrs", &["attribute"], 1.0),
    ("tmpl", &["template"], 1.0),
    // A question about people asks about users.
    ("who", &["user", "member"], 0.3),
    ("whom", &["user", "member"], 0.3),
    ("whose", &["user", "owner"], 0.3),
];

/// The other words APIs use for an action, which count [`ACTION_FORM_WEIGHT`] of it.
const ACTION_FORMS: &[(&str, &[&str])] = &[
    ("get", &["read", "retrieve"]),
    ("update", &["patch", "replace"]),
    ("delete", &["remove"]),
    ("create", &["add"]),
];

/// How much the other words for an action count.
const ACTION_FORM_WEIGHT: f64 = 0.7;

/// The terms of what an operation does, which only a request's first verb stands for.
const ACTIONS: &[&str] = &["create", "get", "list", "update", "delete", "search"];

/// Two-word phrases that mean one verb ("get rid of" is not a get): the pair is read as the
/// word, whose synonyms and intent then apply.
const PHRASES: &[(&str, &str, &str)] = &[
    ("get", "rid", "remove"),
    ("tear", "down", "delete"),
    ("call", "off", "cancel"),
    ("turn", "off", "disable"),
    ("switch", "off", "disable"),
    ("turn", "on", "enable"),
    ("switch", "on", "enable"),
    ("bring", "back", "restore"),
    ("give", "back", "refund"),
    ("hand", "over", "transfer"),
    ("cut", "off", "suspend"),
    ("kick", "out", "remove"),
    ("log", "in", "logged"),
    ("sign", "in", "signed"),
    ("look", "up", "lookup"),
    ("set", "up", "create"),
    ("kick", "off", "trigger"),
    ("how", "many", "count"),
    ("how", "much", "amount"),
    ("pay", "out", "payout"),
    ("top", "up", "topup"),
    ("fast", "forward", "advance"),
    ("sign", "up", "register"),
    ("check", "out", "checkout"),
    ("log", "out", "logout"),
    ("sign", "out", "logout"),
    ("roll", "back", "rollback"),
    ("take", "away", "remove"),
    ("take", "off", "remove"),
    ("throw", "away", "delete"),
    ("clean", "up", "delete"),
    ("pull", "up", "show"),
    ("spin", "up", "create"),
    ("shut", "down", "stop"),
    ("wipe", "out", "delete"),
    ("find", "out", "show"),
    ("fill", "in", "update"),
    ("sign", "off", "approve"),
    ("put", "back", "restore"),
];

/// The request without the values it names — quoted text (`'bug'`), `#7` and `@team`, numbers
/// and amounts, identifiers (`ch_3Nx8`, `worker-7`), paths and `owner/name` pairs, e-mail
/// addresses: they say which thing to act on, not what to do, and their pieces (`octocat`,
/// `yaml`) would otherwise match operations by accident. A file name (`config.yaml`) leaves the
/// word *file* behind.
fn without_values(query: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let mut quote: Option<char> = None;
    for token in query.split_whitespace() {
        if let Some(open) = quote {
            if token
                .trim_end_matches(|c: char| ".,;:!?)".contains(c))
                .ends_with(open)
            {
                quote = None;
            }
            continue;
        }
        let first = token.chars().next().unwrap_or(' ');
        if matches!(first, '\'' | '"' | '`' | '\u{2018}' | '\u{201c}') {
            let closing = match first {
                '\u{2018}' => '\u{2019}',
                '\u{201c}' => '\u{201d}',
                other => other,
            };
            let rest = token[first.len_utf8()..].trim_end_matches(|c: char| ".,;:!?)".contains(c));
            if !rest.ends_with(closing) {
                quote = Some(closing);
            }
            continue;
        }
        let bare = token.trim_matches(|c: char| !c.is_alphanumeric() && !"#@$".contains(c));
        if bare.is_empty() {
            continue;
        }
        let inner = |c: char| "_./:@".contains(c);
        let has_digit = bare.chars().any(|c| c.is_ascii_digit());
        let value = matches!(first, '#' | '@' | '$')
            || bare.starts_with(|c: char| c.is_ascii_digit())
            || bare.contains(inner)
            || (has_digit && bare.contains('-'));
        if !value {
            out.push(bare);
        } else if is_file_name(bare) {
            out.push("file");
        }
    }
    out.join(" ")
}

/// Does `value` end in a file name with an extension (`docs/setup.md`, `old-config.yaml`)?
fn is_file_name(value: &str) -> bool {
    let last = value.rsplit('/').next().unwrap_or(value);
    last.rsplit_once('.').is_some_and(|(name, extension)| {
        !name.is_empty()
            && !name.contains('@')
            && (1..=4).contains(&extension.len())
            && extension.chars().all(|c| c.is_ascii_alphanumeric())
            && extension.chars().any(|c| c.is_ascii_alphabetic())
            && !["com", "org", "net", "io", "dev"].contains(&extension)
    })
}

/// The words of a request, with each of [`PHRASES`] made its one word — also when a few words
/// stand between the verb and its particle ("hand this repository over", "turn it off").
fn request_words(query: &str) -> Vec<String> {
    let mut words = words(&without_values(query));
    strip_preamble(&mut words);
    drop_names(&mut words);
    // "show me the invoices": the one shown to is no first person who owns them.
    let mut index = 1;
    while index < words.len() {
        if words[index] == "me" && DATIVE_VERBS.contains(&words[index - 1].as_str()) {
            words.remove(index);
        } else {
            index += 1;
        }
    }
    let mut out = Vec::with_capacity(words.len());
    let mut index = 0;
    while index < words.len() {
        let phrase = words.get(index + 1).and_then(|next| {
            PHRASES
                .iter()
                .find(|(first, second, _)| *first == words[index] && second == next)
        });
        match phrase {
            Some((_, _, word)) => {
                out.push((*word).to_string());
                index += 2;
            }
            None => {
                // "hand this repository over", "turn it off": the particle a few words on.
                let split = PHRASES.iter().find_map(|(first, second, word)| {
                    if *first != words[index] || !PARTICLES.contains(second) {
                        return None;
                    }
                    (index + 2..words.len().min(index + 5))
                        .find(|&at| words[at] == *second)
                        .map(|at| (at, *word))
                });
                match split {
                    Some((at, word)) => {
                        out.push(word.to_string());
                        words.remove(at);
                    }
                    None => out.push(words[index].clone()),
                }
                index += 1;
            }
        }
    }
    out
}

/// How a request may open before it says what to do ("can you", "I'd like to", "please").
const PREAMBLES: &[&[&str]] = &[
    &["please"],
    &["kindly"],
    &["can", "you"],
    &["could", "you"],
    &["would", "you"],
    &["will", "you"],
    &["can", "i"],
    &["could", "i"],
    &["can", "we"],
    &["i", "want", "to"],
    &["i", "wanna"],
    &["i", "need", "to"],
    &["we", "need", "to"],
    &["we", "want", "to"],
    &["i", "d", "like", "to"],
    &["i", "would", "like", "to"],
    &["we", "d", "like", "to"],
    &["i", "have", "to"],
    &["i", "must"],
    &["help", "me"],
    &["how", "do", "i"],
    &["how", "can", "i"],
    &["how", "do", "we"],
    &["how", "can", "we"],
    &["how", "to"],
    &["is", "there", "a", "way", "to"],
    &["is", "it", "possible", "to"],
    &["let", "s"],
    &["let", "me"],
    &["go", "ahead", "and"],
    &["try", "to"],
    &["just"],
    &["quickly"],
];

/// `words` without the [`PREAMBLES`] it opens with: what comes after them is the request.
fn strip_preamble(words: &mut Vec<String>) {
    loop {
        let found = PREAMBLES.iter().find(|preamble| {
            preamble.len() < words.len() && preamble.iter().zip(words.iter()).all(|(p, w)| p == w)
        });
        match found {
            Some(preamble) => {
                words.drain(..preamble.len());
            }
            None => break,
        }
    }
}

/// Verbs whose "me" is whom something is given to ("show me", "give me").
const DATIVE_VERBS: &[&str] = &[
    "show", "give", "tell", "get", "find", "send", "fetch", "bring", "pull", "list", "grab", "let",
];

/// Words after which a request names a thing: the word that follows is its name, not a word
/// of what to do ("a customer named bob", "in namespace prod").
const NAMING_WORDS: &[&str] = &["named", "called", "titled"];

/// Things that hold others, which a request names right after a preposition ("in namespace
/// prod", "from channel general", "to project apollo").
const CONTAINERS: &[&str] = &[
    "namespace",
    "channel",
    "repo",
    "repository",
    "project",
    "org",
    "organization",
    "workspace",
    "team",
    "folder",
    "directory",
    "bucket",
    "cluster",
    "environment",
    "group",
    "account",
    "region",
    "zone",
];

const PREPOSITIONS: &[&str] = &[
    "in", "from", "to", "into", "of", "on", "across", "for", "within",
];

/// `words` without the names they give things ([`NAMING_WORDS`], [`CONTAINERS`]).
fn drop_names(words: &mut Vec<String>) {
    let mut index = 0;
    while index + 1 < words.len() {
        let named = NAMING_WORDS.contains(&words[index].as_str())
            || (index > 0
                && PREPOSITIONS.contains(&words[index - 1].as_str())
                && CONTAINERS.contains(&words[index].as_str()));
        if named && !STOP_WORDS.contains(&words[index + 1].as_str()) {
            words.remove(index + 1);
        }
        index += 1;
    }
}

/// Irregular forms of verbs an API's text uses in their base form ("who paid", "what was sent").
const IRREGULAR: &[(&str, &str)] = &[
    ("ran", "run"),
    ("made", "make"),
    ("sent", "send"),
    ("paid", "pay"),
    ("bought", "buy"),
    ("sold", "sell"),
    ("built", "build"),
    ("wrote", "write"),
    ("written", "write"),
    ("chose", "choose"),
    ("chosen", "choose"),
    ("began", "begin"),
    ("begun", "begin"),
    ("gave", "give"),
    ("given", "give"),
    ("took", "take"),
    ("taken", "take"),
    ("drew", "draw"),
    ("drawn", "draw"),
    ("froze", "freeze"),
    ("frozen", "freeze"),
    ("hid", "hide"),
    ("hidden", "hide"),
    ("lost", "lose"),
    ("got", "get"),
    ("gotten", "get"),
    ("went", "go"),
    ("gone", "go"),
    ("saw", "see"),
    ("seen", "see"),
    ("knew", "know"),
    ("known", "know"),
    ("threw", "throw"),
    ("thrown", "throw"),
    ("forgot", "forget"),
    ("forgotten", "forget"),
    ("spent", "spend"),
    ("held", "hold"),
    ("kept", "keep"),
    ("led", "lead"),
    ("met", "meet"),
    ("said", "say"),
    ("told", "tell"),
    ("thought", "think"),
    ("brought", "bring"),
    ("caught", "catch"),
    ("taught", "teach"),
    ("fell", "fall"),
    ("fallen", "fall"),
    ("broke", "break"),
    ("broken", "break"),
    ("woke", "wake"),
    ("won", "win"),
];

/// The particles of [`PHRASES`] that may come a few words after their verb.
const PARTICLES: &[&str] = &["off", "back", "over", "out", "up", "down", "away"];

/// What a request asks to do, from its first verb: the HTTP method and path shape that do it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Intent {
    Create,
    List,
    Get,
    Update,
    Delete,
}

impl Intent {
    /// The term of operations that do it.
    fn term(self) -> &'static str {
        match self {
            Intent::Create => "create",
            Intent::List => "list",
            Intent::Get => "get",
            Intent::Update => "update",
            Intent::Delete => "delete",
        }
    }
}

/// The words that say what a request asks to do.
const INTENT_WORDS: &[(&str, Intent)] = &[
    ("create", Intent::Create),
    ("new", Intent::Create),
    ("add", Intent::Create),
    ("make", Intent::Create),
    ("open", Intent::Create),
    ("start", Intent::Create),
    ("register", Intent::Create),
    ("generate", Intent::Create),
    ("submit", Intent::Create),
    ("send", Intent::Create),
    ("post", Intent::Create),
    ("list", Intent::List),
    ("all", Intent::List),
    ("every", Intent::List),
    ("browse", Intent::List),
    ("which", Intent::List),
    ("get", Intent::Get),
    ("show", Intent::Get),
    ("fetch", Intent::Get),
    ("view", Intent::Get),
    ("read", Intent::Get),
    ("retrieve", Intent::Get),
    ("look", Intent::Get),
    ("details", Intent::Get),
    ("update", Intent::Update),
    ("edit", Intent::Update),
    ("change", Intent::Update),
    ("modify", Intent::Update),
    ("rename", Intent::Update),
    ("set", Intent::Update),
    ("delete", Intent::Delete),
    ("remove", Intent::Delete),
    ("kill", Intent::Delete),
    ("display", Intent::Get),
    ("inspect", Intent::Get),
    ("describe", Intent::Get),
    ("enumerate", Intent::List),
    ("terminate", Intent::Delete),
    ("drop", Intent::Delete),
    ("purge", Intent::Delete),
    ("wipe", Intent::Delete),
    ("grant", Intent::Create),
    ("enroll", Intent::Create),
    ("attach", Intent::Create),
    ("import", Intent::Create),
    ("adjust", Intent::Update),
    ("tweak", Intent::Update),
    ("alter", Intent::Update),
    ("overwrite", Intent::Update),
    ("toggle", Intent::Update),
    ("mark", Intent::Update),
    ("store", Intent::Create),
    ("save", Intent::Create),
    ("record", Intent::Create),
    ("dump", Intent::List),
    ("erase", Intent::Delete),
    ("destroy", Intent::Delete),
    ("rid", Intent::Delete),
    // More words of general English that say what to do.
    ("provision", Intent::Create),
    ("establish", Intent::Create),
    ("spawn", Intent::Create),
    ("instantiate", Intent::Create),
    ("construct", Intent::Create),
    ("peek", Intent::Get),
    ("obtain", Intent::Get),
    ("examine", Intent::Get),
    ("rewrite", Intent::Update),
    ("amend", Intent::Update),
    ("revise", Intent::Update),
    ("reconfigure", Intent::Update),
    ("nuke", Intent::Delete),
    ("scrap", Intent::Delete),
    ("ditch", Intent::Delete),
    ("trash", Intent::Delete),
    ("discard", Intent::Delete),
    ("eliminate", Intent::Delete),
    ("deregister", Intent::Delete),
    ("unregister", Intent::Delete),
    ("uninstall", Intent::Delete),
    ("decommission", Intent::Delete),
];

/// How much more an operation whose method and path shape do what the request asks scores.
const SHAPE_WEIGHT: f64 = 0.35;

/// What `query` asks to do: its first word that says so; a get of something plural is a list,
/// and so is a request with no such word that names things in the plural ("what nodes are in
/// the cluster?").
fn intent(query: &str) -> Option<Intent> {
    let words = request_words(query);
    let found = words
        .iter()
        .find_map(|w| INTENT_WORDS.iter().find(|(i, _)| i == w).map(|(_, i)| *i));
    let plural = words
        .iter()
        .filter(|w| !INTENT_WORDS.iter().any(|(i, _)| i == w))
        .filter(|w| !STOP_WORDS.contains(&w.as_str()))
        .any(|w| is_plural(w));
    // "tag the repo with topics", "archive the old channels": a request that opens with a verb
    // of its own (a word before a determiner) does that to the things it names, whatever their
    // number.
    let imperative = words.len() > 1 && DETERMINERS.contains(&words[1].as_str()) && {
        let first = words[0].as_str();
        !INTENT_WORDS.iter().any(|(i, _)| *i == first)
            && !QUESTION_WORDS.contains(&first)
            && !STOP_WORDS.contains(&first)
            && !is_plural(first)
    };
    // A question asks what is, whatever verb it holds ("what IP ranges does GitHub send
    // webhooks from?"): it reads.
    let questioned = words
        .first()
        .is_some_and(|w| QUESTION_WORDS.contains(&w.as_str()) && w != "which");
    let found = match found {
        Some(Intent::Create | Intent::Update | Intent::Delete) if questioned => None,
        other => other,
    };
    match found {
        None if plural && imperative => None,
        Some(Intent::Get) | None if plural => Some(Intent::List),
        // A question without a verb of its own asks to read ("is node worker-3 ready?").
        None if words
            .first()
            .is_some_and(|w| QUESTION_WORDS.contains(&w.as_str())) =>
        {
            Some(Intent::Get)
        }
        other => other,
    }
}

/// Does `query` ask to change something without saying how: it opens with a verb that is none
/// of [`INTENT_WORDS`] ("refund the charge", "archive the price", "issue a card") and is no
/// question. Requests that only read say so ("show", "list", "which …?"); an imperative of
/// any other verb acts, so the operations that write rank above those that read.
fn acts(query: &str) -> bool {
    // "can you archive the price?" asks to act, though it ends like a question.
    let polite = {
        let mut all = words(&without_values(query));
        let before = all.len();
        strip_preamble(&mut all);
        all.len() < before
    };
    if intent(query).is_some() || (query.trim_end().ends_with('?') && !polite) {
        return false;
    }
    request_words(query).first().is_some_and(|first| {
        !STOP_WORDS.contains(&first.as_str()) && !QUESTION_WORDS.contains(&first.as_str())
    })
}

/// Words that open what a verb acts on ("the", "a", "my").
const DETERMINERS: &[&str] = &[
    "the", "a", "an", "this", "that", "these", "those", "my", "our", "your", "his", "her", "their",
    "its", "some", "each",
];

/// Does `word` name things in the plural (`branches`, `PVs`)?
fn is_plural(word: &str) -> bool {
    word.is_ascii()
        && ((word.len() > 3 && singular(word) != word)
            || (word.ends_with('s') && stem(word).len() + 1 == word.len()))
}

/// The words that open a question.
const QUESTION_WORDS: &[&str] = &[
    "is", "are", "was", "were", "did", "does", "do", "has", "have", "how", "who", "what", "when",
    "which", "whose",
];

/// Does the request `METHOD /path` do what `intent` asks: create is a POST to a collection, list
/// a GET of a collection, get a GET of one item, update a PUT, PATCH or POST to an item, delete
/// a DELETE — or does its name `name` say so?
fn shape_matches(intent: Intent, name: &str, request: &str) -> bool {
    let (method, path) = request.split_once(' ').unwrap_or((request, ""));
    let item = path
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .is_some_and(|last| last.starts_with('{'));
    // An RPC-style path (Slack's `POST /chat.delete`) has no shape: every write is a POST to
    // a method, every read a GET of one.
    let rpc = !path.contains('{')
        && path
            .rsplit('/')
            .next()
            .is_some_and(|last| last.contains('.'));
    let shaped = !rpc
        && match intent {
            Intent::Create => method == "POST" && !item,
            Intent::List => method == "GET" && !item,
            Intent::Get => method == "GET" && item,
            Intent::Update => matches!(method, "PUT" | "PATCH") || (method == "POST" && item),
            Intent::Delete => method == "DELETE",
        };
    // RPC-style APIs (Slack's `POST /chat.delete`) say it in the name instead.
    let verbs: &[&str] = match intent {
        Intent::Create => &[
            "create", "add", "post", "upload", "send", "schedule", "open", "invite", "start",
        ],
        Intent::List => &["list"],
        Intent::Get => &["get", "info"],
        Intent::Update => &["update", "set"],
        Intent::Delete => &["delete", "remove"],
    };
    // A name that opens with its method (Stripe's `PostTaxRatesTaxRate`) says no more than the
    // method does.
    let name_words = words(name);
    let echoes_method = name_words
        .first()
        .is_some_and(|first| first.eq_ignore_ascii_case(method));
    shaped || (!echoes_method && name_words.iter().any(|w| verbs.contains(&w.as_str())))
}

/// How much an operation that only tests use (Stripe's `/v1/test_helpers/…`) scores unless
/// the request speaks of testing: like a deprecated one, it is seldom what is asked for.
const TESTING_WEIGHT: f64 = 0.6;

/// Words (stemmed) of a request that asks for what only tests use.
const TESTING_WORDS: &[&str] = &["test", "simul", "fake", "sandbox", "mock"];

/// Is the request `METHOD /path` one that only tests use (Stripe's `/v1/test_helpers/…`)?
fn for_testing(request: &str) -> bool {
    let path = request.split_once(' ').map_or(request, |(_, path)| path);
    path.split('/')
        .filter(|segment| !segment.starts_with('{'))
        .any(|segment| words(segment).iter().any(|w| w == "test" || w == "testing"))
}

/// Does the request `METHOD /path` act on one item (its path ends in a parameter)?
fn is_item(request: &str) -> bool {
    request
        .split_once(' ')
        .map_or(request, |(_, path)| path)
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .is_some_and(|last| last.starts_with('{'))
}

/// How much the names an API gives a thing count for the name a request gives it.
const NOUN_WEIGHT: f64 = 0.6;

/// How much "me", "my" and "I" count as the authenticated user.
const FIRST_PERSON_WEIGHT: f64 = 0.3;

/// Words of a request's phrasing rather than of an operation ("show the details", "all
/// recent"): they count as themselves only [`LITERAL_WEIGHT`], their synonyms fully. Any other
/// word with synonyms ("remove", "archive") is also an operation's own word and counts fully.
const PHRASING_WORDS: &[&str] = &[
    "show", "see", "look", "view", "details", "detail", "info", "all", "recent", "browse", "dump",
    "fetch", "retrieve", "read", "find", "lookup", "rid", "me", "my", "i", "mine", "myself", "new",
    "make", "logged", "signed",
];

/// How much a part of a hyphenated word counts.
const MODIFIER_WEIGHT: f64 = 0.5;

/// How much a phrasing word counts as itself.
const LITERAL_WEIGHT: f64 = 0.5;

/// How much a plural noun in a request (`branches of the repo`) counts as asking for a list.
const PLURAL_LIST_WEIGHT: f64 = 0.3;

/// The lowercase words of `text`, split at case changes, `_`, `-`, `/` and any other
/// non-alphanumeric character.
fn words(text: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    // The word being read: where it starts in `chars`.
    let mut start = None;
    for (index, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if let Some(from) = start.take() {
                words.push(lowercase(&chars[from..index]));
            }
            continue;
        }
        if let Some(&previous) = index.checked_sub(1).and_then(|i| chars.get(i)) {
            let next_is_lower = chars.get(index + 1).is_some_and(|n| n.is_lowercase());
            // `pullRequest` → pull Request; `HTTPServer` → HTTP Server.
            // `PVs` is the plural of `PV`, not `P` and `Vs`.
            let plural_s = chars.get(index + 1) == Some(&'s')
                && chars
                    .get(index + 2)
                    .is_none_or(|after| !after.is_alphanumeric());
            let camel = c.is_uppercase()
                && (previous.is_lowercase()
                    || previous.is_ascii_digit()
                    || (previous.is_uppercase() && next_is_lower && !plural_s));
            if camel && let Some(from) = start {
                words.push(lowercase(&chars[from..index]));
                start = Some(index);
            }
        }
        start.get_or_insert(index);
    }
    if let Some(from) = start {
        words.push(lowercase(&chars[from..]));
    }
    words
}

/// The word made of `chars`, in lowercase (as `str::to_lowercase` makes it, which lowercases a
/// final sigma as such).
fn lowercase(chars: &[char]) -> String {
    if chars.iter().all(char::is_ascii) {
        return chars.iter().map(char::to_ascii_lowercase).collect();
    }
    chars.iter().collect::<String>().to_lowercase()
}

/// The search terms of `text`: its [`words`] without common ones, each reduced to its stem.
pub fn terms(text: &str) -> Vec<String> {
    words(text)
        .into_iter()
        .filter(|word| is_term(word))
        .map(|word| stem(&word))
        .collect()
}

/// Whether a word of [`words`] stands for a search term: it is not a common word, and it is
/// longer than one character.
fn is_term(word: &str) -> bool {
    !STOP_WORDS.contains(&word) && word.chars().count() > 1
}

/// The terms of a query with their weights: its own [`terms`], those its words stand for, and
/// `list` when it names things in the plural.
pub fn query_terms(query: &str) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = Vec::new();
    let mut add = |term: String, weight: f64| match out.iter_mut().find(|(t, _)| *t == term) {
        Some(existing) => existing.1 = existing.1.max(weight),
        None => out.push((term, weight)),
    };
    // "show the branches" asks for a list, not for a get.
    let asked = intent(query);
    let list = asked == Some(Intent::List);
    let mut acted = false;
    let words = request_words(query);
    let question = words
        .first()
        .is_some_and(|w| QUESTION_WORDS.contains(&w.as_str()));
    // The parts of a hyphenated word ("customer-facing", "one-off") describe the thing asked
    // about rather than name it — unless it opens the request ("re-run the job").
    let modifiers: Vec<String> = without_values(query)
        .split_whitespace()
        .skip(1)
        .filter(|token| token.contains('-'))
        .flat_map(self::words)
        .collect();
    for word in words {
        let mut own = if modifiers.contains(&word) {
            MODIFIER_WEIGHT
        } else {
            1.0
        };
        let mut verb = INTENT_WORDS.iter().any(|(w, _)| *w == word);
        // "reacted" stands for what "react" does, "removes" for what "remove" does.
        let word_stem = stem(&word);
        let synonyms = SYNONYMS
            .iter()
            .find(|(w, _, _)| *w == word)
            .or_else(|| SYNONYMS.iter().find(|(w, _, _)| stem(w) == word_stem))
            // (These only as themselves: their other forms mean other things.)
            .or_else(|| MORE_SYNONYMS.iter().find(|(w, _, _)| *w == word));
        if let Some((_, stands_for, weight)) = synonyms {
            for term in *stands_for {
                // Only the request's first verb says what to do: in "delete the file I
                // uploaded" the upload is not a create.
                if ACTIONS.contains(term) {
                    if acted && asked.is_none_or(|i| i.term() != *term) {
                        continue;
                    }
                    verb = true;
                }
                let term = if list && *term == "get" { "list" } else { term };
                add(stem(term), *weight);
                // Kubernetes reads and replaces, Stripe retrieves.
                if let Some((_, forms)) = ACTION_FORMS.iter().find(|(a, _)| *a == term) {
                    for form in *forms {
                        add(stem(form), weight * ACTION_FORM_WEIGHT);
                    }
                }
            }
            if PHRASING_WORDS.contains(&word.as_str()) {
                own = LITERAL_WEIGHT;
            }
        }
        acted |= verb;
        if STOP_WORDS.contains(&word.as_str()) || word.chars().count() < 2 {
            continue;
        }
        // Things named in the plural ask for a list, unless the request does something else to
        // them ("submit expenses").
        if is_plural(&word) && asked.is_none_or(|i| i == Intent::List) {
            add(stem("list"), PLURAL_LIST_WEIGHT);
        }
        // A question's past participle says what happened, not what to do: "when was #general
        // created?" reads a channel.
        if question
            && word.ends_with("ed")
            && ACTIONS.iter().any(|action| stem(action) == word_stem)
        {
            own = LITERAL_WEIGHT;
        }
        let base = IRREGULAR
            .iter()
            .find(|(form, _)| *form == word)
            .map_or(word.as_str(), |(_, base)| base);
        add(stem(base), own);
    }
    out
}

/// The stem of `word`, the same for its forms (`repositories` and `repository`, `merged` and
/// `merge`, `listing` and `list`): the Snowball English stemmer, at index-build time and at
/// query time alike.
fn stem(word: &str) -> String {
    use rust_stemmers::{Algorithm, Stemmer};
    // Snowball leaves the one who is acted on apart from the act (`assignee` → `assigne`); the
    // request says "assign someone" for an operation that adds assignees.
    let word = word
        .strip_suffix("ees")
        .or_else(|| word.strip_suffix("ee"))
        .filter(|base| base.len() >= 5)
        .unwrap_or(word);
    // The plural of initials (`pvs`, `csrs`) is the initials.
    if let Some(single) = word.strip_suffix('s')
        && (2..=4).contains(&single.len())
        && !single.contains(['a', 'e', 'i', 'o', 'u', 'y'])
    {
        return single.to_string();
    }
    // Creating a stemmer allocates nothing: it is the algorithm's function.
    Stemmer::create(Algorithm::English).stem(word).into_owned()
}

/// A simple singular: `repositories` → `repository`, `branches` → `branch`, `pulls` → `pull`.
fn singular(word: &str) -> String {
    if let Some(stem) = word.strip_suffix("ies") {
        return format!("{stem}y");
    }
    if word.ends_with("aches") {
        // `caches` → `cache`, not `cach`.
        return word[..word.len() - 1].to_string();
    }
    for ending in ["sses", "shes", "ches", "xes", "zes"] {
        if word.ends_with(ending) {
            return word[..word.len() - 2].to_string();
        }
    }
    if word.ends_with('s')
        && !word.ends_with("ss")
        && !word.ends_with("us")
        && !word.ends_with("is")
    {
        return word[..word.len() - 1].to_string();
    }
    word.to_string()
}

/// One operation as the index shows it in results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The name the discovery tools know it by (its operationId).
    pub name: String,
    /// `GET /repos/{owner}/{repo}/pulls`
    pub request: String,
    pub read_only: bool,
    /// One line.
    pub summary: String,
    pub tags: Vec<String>,
}

/// One operation and the text of its fields, as mcpgen hands it to [`build`].
#[derive(Debug, Clone)]
pub struct Document {
    pub entry: Entry,
    pub fields: Vec<(Field, String)>,
    /// Deprecated operations rank below the ones that replace them.
    pub deprecated: bool,
}

/// How much a deprecated operation's terms count.
const DEPRECATED_WEIGHT: f64 = 0.6;

/// The initials of the names of things in an operation's name, as a request abbreviates them
/// (`pv` and `pvc` in `listCoreV1PersistentVolumeClaim`, `csr` in
/// `createCertificatesV1CertificateSigningRequest`): of each run of two or three words, leaving
/// out the first word (the verb or the group) and any with a digit.
fn initials(name: &str) -> Vec<String> {
    let words = words(name);
    let mut out = Vec::new();
    for start in 1..words.len() {
        let mut initials = String::new();
        for word in &words[start..words.len().min(start + 3)] {
            if word.chars().count() < 2 || !word.chars().all(char::is_alphabetic) {
                break;
            }
            initials.extend(word.chars().next());
            if initials.chars().count() >= 2 && !out.contains(&initials) {
                out.push(initials.clone());
            }
        }
    }
    out
}

/// The terms of the documents [`build`] indexes, numbered as they are first met.
#[derive(Default)]
struct Terms {
    /// Each term's text, by number.
    names: Vec<String>,
    numbers: HashMap<String, u32>,
    /// Each word met: the number of its stemmed term, or `None` for a word that is no term (a
    /// stop word, or a single character).
    words: HashMap<String, Option<u32>>,
}

impl Terms {
    /// The number of the term `word` makes ([`terms`]), if it makes one.
    fn of_word(&mut self, word: String) -> Option<u32> {
        if let Some(&term) = self.words.get(&word) {
            return term;
        }
        let term = is_term(&word).then(|| self.number(stem(&word)));
        self.words.insert(word, term);
        term
    }

    /// The number of the term `name`.
    fn number(&mut self, name: String) -> u32 {
        if let Some(&number) = self.numbers.get(&name) {
            return number;
        }
        let number = self.names.len() as u32;
        self.names.push(name.clone());
        self.numbers.insert(name, number);
        number
    }
}

/// Writes the index of `documents`: the operations in order, then each term with the
/// operations it occurs in and its weight there (sorted, so the same documents always give the
/// same text).
pub fn build(documents: &[Document]) -> String {
    // Terms are numbered as they are first met, and counted by number below: an API's operations
    // say the same words again and again, and each word is stemmed (or found to be no term) once.
    let mut terms = Terms::default();
    let mut field_lengths = [0.0_f64; Field::ALL.len()];
    let mut per_document: Vec<[Vec<u32>; Field::ALL.len()]> = Vec::with_capacity(documents.len());
    for document in documents {
        let mut fields: [Vec<u32>; Field::ALL.len()] = Default::default();
        for (field, text) in &document.fields {
            let found = &mut fields[*field as usize];
            for word in words(text) {
                if let Some(term) = terms.of_word(word) {
                    found.push(term);
                }
            }
            if *field == Field::Name {
                for initials in initials(text) {
                    let term = terms.number(initials);
                    fields[Field::Initials as usize].push(term);
                }
            }
        }
        for (total, found) in field_lengths.iter_mut().zip(&fields) {
            *total += found.len() as f64;
        }
        per_document.push(fields);
    }
    let average =
        |field: Field| (field_lengths[field as usize] / documents.len().max(1) as f64).max(1.0);
    let mut postings: Vec<Vec<(usize, f64)>> = vec![Vec::new(); terms.names.len()];
    // Counts and weights by term number, and the terms each holds one for, to clear them.
    let mut counts = vec![0_usize; terms.names.len()];
    let mut weights = vec![0.0_f64; terms.names.len()];
    let (mut counted, mut weighed): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
    for (index, (fields, document)) in per_document.iter().zip(documents).enumerate() {
        let standing = if document.deprecated {
            DEPRECATED_WEIGHT
        } else {
            1.0
        };
        // Each term's weight is summed over the fields in their order (so the same documents
        // always give the same sums).
        for (field, words) in Field::ALL.into_iter().zip(fields) {
            if words.is_empty() {
                continue;
            }
            let norm = 1.0 - B + B * words.len() as f64 / average(field);
            for &term in words {
                if counts[term as usize] == 0 {
                    counted.push(term);
                }
                counts[term as usize] += 1;
            }
            for term in counted.drain(..) {
                let count = std::mem::take(&mut counts[term as usize]);
                // Every weight added is above 0: a term at 0 has none yet.
                if weights[term as usize] == 0.0 {
                    weighed.push(term);
                }
                weights[term as usize] += standing * field.weight() * count as f64 / norm;
            }
        }
        for term in weighed.drain(..) {
            let weight = std::mem::take(&mut weights[term as usize]);
            postings[term as usize].push((index, weight));
        }
    }
    // The terms in their order as text.
    let mut order: Vec<u32> = (0..terms.names.len() as u32).collect();
    order.sort_unstable_by(|a, b| terms.names[*a as usize].cmp(&terms.names[*b as usize]));
    let mut out = String::new();
    out.push_str(FORMAT);
    out.push('\n');
    for document in documents {
        let entry = &document.entry;
        let _ = write!(
            out,
            "op\t{}\t{}\t{}\t{}",
            one_line(&entry.name),
            one_line(&entry.request),
            if entry.read_only { "r" } else { "w" },
            one_line(&entry.summary)
        );
        for tag in &entry.tags {
            let _ = write!(out, "\t{}", one_line(tag));
        }
        out.push('\n');
    }
    for term in order {
        let list = &postings[term as usize];
        if list.is_empty() {
            continue;
        }
        out.push_str("t\t");
        out.push_str(&terms.names[term as usize]);
        for (index, weight) in list {
            let _ = write!(out, "\t{index}:{weight:.2}");
        }
        out.push('\n');
    }
    out
}

/// `text` with every run of white space (tabs and line breaks too) made one space.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Endings (as stemmed) that make a word from another: `reaction` from `react`, `billabl(e)`
/// from `bill`, `payment` from `pay`.
const DERIVATIONS: &[&str] = &["ion", "ment", "abl", "er", "or"];

/// How much a word that neighbouring words of a request make together counts.
const COMPOUND_WEIGHT: f64 = 0.5;

/// How much a word derived from the same root as a request's word counts.
const RELATED_WEIGHT: f64 = 0.6;

/// The Dirichlet prior of the second ranking, query likelihood ([`Index::likelihood`]): how
/// much an operation's own text is smoothed toward the whole index's.
const LIKELIHOOD_PRIOR: f64 = 50.0;

/// How much the second ranking's order counts beside the first's when the two are fused.
const LIKELIHOOD_FUSION_WEIGHT: f64 = 0.2;

/// The rank offset of reciprocal-rank fusion (the usual 60: a place near the top counts little
/// more than the next).
const FUSION_OFFSET: f64 = 60.0;

/// The index, read.
#[derive(Debug, Clone)]
pub struct Index {
    pub entries: Vec<Entry>,
    postings: HashMap<String, Vec<(u32, f32)>>,
    /// Per operation, the sum of its terms' weights: the length of its text for
    /// [`Index::likelihood`].
    lengths: Vec<f64>,
    /// The sum of every term's weight in every operation.
    mass: f64,
}

/// One search result: the entry's position and its score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    pub entry: usize,
    pub score: f64,
}

/// What a search may be narrowed to.
#[derive(Debug, Clone, Default)]
pub struct Filter<'a> {
    /// Only operations with this tag (compared ignoring case).
    pub tag: Option<&'a str>,
    /// Only operations that change nothing.
    pub read_only: bool,
}

impl Index {
    /// Reads an index [`build`] wrote; lines starting with `//` (the file's header) are skipped.
    pub fn parse(text: &str) -> Result<Index, String> {
        let mut lines = text.lines().filter(|line| !line.starts_with("//"));
        if lines.next() != Some(FORMAT) {
            return Err(format!("the search index does not start with `{FORMAT}`"));
        }
        let mut entries = Vec::new();
        let mut postings = HashMap::new();
        for (number, line) in lines.enumerate() {
            let bad = || format!("the search index is damaged at line {}", number + 2);
            let mut parts = line.split('\t');
            match parts.next() {
                Some("op") => {
                    let name = parts.next().ok_or_else(bad)?.to_string();
                    let request = parts.next().ok_or_else(bad)?.to_string();
                    let read_only = parts.next().ok_or_else(bad)? == "r";
                    let summary = parts.next().ok_or_else(bad)?.to_string();
                    let tags = parts.map(str::to_string).collect();
                    entries.push(Entry {
                        name,
                        request,
                        read_only,
                        summary,
                        tags,
                    });
                }
                Some("t") => {
                    let word = parts.next().ok_or_else(bad)?.to_string();
                    let mut list = Vec::new();
                    for posting in parts {
                        let (index, weight) = posting.split_once(':').ok_or_else(bad)?;
                        let index: u32 = index.parse().map_err(|_| bad())?;
                        if index as usize >= entries.len() {
                            return Err(bad());
                        }
                        list.push((index, weight.parse().map_err(|_| bad())?));
                    }
                    postings.insert(word, list);
                }
                _ => return Err(bad()),
            }
        }
        let mut lengths = vec![0.0; entries.len()];
        for list in postings.values() {
            for &(index, weight) in list {
                lengths[index as usize] += f64::from(weight);
            }
        }
        let mass = lengths.iter().sum();
        Ok(Index {
            entries,
            postings,
            lengths,
            mass,
        })
    }

    /// The position of the operation called `name`.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.entries.iter().position(|entry| entry.name == name)
    }

    /// The operations that match `query` and `filter`, best first, at most `limit`. Ties keep
    /// the index's order, so results are stable.
    ///
    /// Two rankings decide the order. The first (BM25F over the fields, with what the request
    /// asks to do, how much of it an operation covers and its name) picks the first result and
    /// gives each hit its [`Hit::score`]; below the first, its order is fused with a second,
    /// different model's, query likelihood ([`Index::likelihood`]), by reciprocal rank: an
    /// operation both rank well climbs above one only the first favours.
    pub fn search(&self, query: &str, filter: &Filter<'_>, limit: usize) -> Vec<Hit> {
        let total = self.entries.len() as f64;
        // Per operation: the score so far, and how much of the query it matched.
        let mut scores: HashMap<u32, (f64, f64)> = HashMap::new();
        let query_terms = self.compounds(query, self.related(query_terms(query)));
        let query_weight: f64 = query_terms.iter().map(|(_, w)| w).sum();
        for (term, query_weight) in &query_terms {
            let Some(list) = self.postings.get(term) else {
                continue;
            };
            let found = list.len() as f64;
            let idf = (1.0 + (total - found + 0.5) / (found + 0.5)).ln();
            for &(index, weight) in list {
                let weight = f64::from(weight);
                let entry = scores.entry(index).or_default();
                entry.0 += query_weight * idf * weight * (K1 + 1.0) / (weight + K1);
                entry.1 += query_weight * (weight / COVERING_WEIGHT).min(1.0);
            }
        }
        // An operation that matches more of the request ranks above one that matches a rare
        // word of it many times; one whose name the request covers (`repos/get` for "get a
        // repository") above one whose name says more than was asked.
        let wanted: Vec<&str> = query_terms.iter().map(|(t, _)| t.as_str()).collect();
        let intent = intent(query);
        let acts = acts(query);
        let words = request_words(query);
        // Only a request that speaks of testing wants what only tests use.
        let asks_test = words
            .iter()
            .any(|w| TESTING_WORDS.contains(&stem(w).as_str()));
        // "issue a virtual card" makes one: an operation on an item it names is not it.
        let indefinite = words
            .iter()
            .any(|w| matches!(w.as_str(), "a" | "an" | "new" | "another"));
        let mut hits: Vec<Hit> = scores
            .into_iter()
            .filter(|(index, _)| self.admits(*index as usize, filter))
            .map(|(index, (score, matched))| {
                let name = terms(&self.entries[index as usize].name);
                let named = name.iter().filter(|t| wanted.contains(&t.as_str())).count();
                let name_coverage = named as f64 / name.len().max(1) as f64;
                let coverage = matched / query_weight.max(f64::MIN_POSITIVE);
                let entry = &self.entries[index as usize];
                let shape = match intent {
                    Some(intent) if shape_matches(intent, &entry.name, &entry.request) => {
                        1.0 + SHAPE_WEIGHT
                    }
                    None if acts
                        && !entry.read_only
                        && !(indefinite && is_item(&entry.request)) =>
                    {
                        1.0 + SHAPE_WEIGHT
                    }
                    _ => 1.0,
                };
                let standing = if !asks_test && for_testing(&entry.request) {
                    TESTING_WEIGHT
                } else {
                    1.0
                };
                Hit {
                    entry: index as usize,
                    score: standing
                        * score
                        * (0.5 + 0.5 * coverage)
                        * (1.0 + NAME_COVERAGE_WEIGHT * name_coverage)
                        * shape,
                }
            })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.entry.cmp(&b.entry)));
        self.fuse(&mut hits, &query_terms);
        hits.truncate(limit);
        hits
    }

    /// Reorders `hits` (sorted by the first ranking) below the first one by reciprocal-rank
    /// fusion with query likelihood: each counts `1 / (FUSION_OFFSET + rank)` of the first
    /// ranking plus [`LIKELIHOOD_FUSION_WEIGHT`] times that of the second. The first result
    /// stays: fused in at any weight, the second model cost first places on the tuning half
    /// (tests/discovery/eval/README.md, round 6).
    fn fuse(&self, hits: &mut [Hit], query_terms: &[(String, f64)]) {
        if hits.len() < 3 {
            return;
        }
        let likelihood = self.likelihood(query_terms, hits);
        let mut by_likelihood: Vec<(usize, f64)> = hits
            .iter()
            .map(|hit| (hit.entry, likelihood[&hit.entry]))
            .collect();
        by_likelihood.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let second_rank: HashMap<usize, usize> = by_likelihood
            .iter()
            .enumerate()
            .map(|(rank, (entry, _))| (*entry, rank))
            .collect();
        let fused = |rank: usize, hit: &Hit| {
            1.0 / (FUSION_OFFSET + rank as f64)
                + LIKELIHOOD_FUSION_WEIGHT / (FUSION_OFFSET + second_rank[&hit.entry] as f64)
        };
        let mut ranked: Vec<(f64, Hit)> = hits[1..]
            .iter()
            .enumerate()
            .map(|(rank, hit)| (fused(rank + 1, hit), *hit))
            .collect();
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.entry.cmp(&b.1.entry)));
        for (slot, (_, hit)) in hits[1..].iter_mut().zip(ranked) {
            *slot = hit;
        }
    }

    /// The query likelihood of each of `hits` (a language model of its text with Dirichlet
    /// smoothing, [`LIKELIHOOD_PRIOR`]): the log-probability that its text, smoothed with the
    /// whole index's, says the request's terms. The index's term weights stand for counts.
    /// Unlike BM25 it rewards an operation whose text is mostly the request's words, and it
    /// does not saturate a term's count.
    fn likelihood(&self, query_terms: &[(String, f64)], hits: &[Hit]) -> HashMap<usize, f64> {
        let total: f64 = query_terms.iter().map(|(_, weight)| weight).sum();
        let mut scores: HashMap<usize, f64> = hits
            .iter()
            .map(|hit| {
                let length = self.lengths[hit.entry];
                (
                    hit.entry,
                    total * (LIKELIHOOD_PRIOR / (length + LIKELIHOOD_PRIOR)).ln(),
                )
            })
            .collect();
        for (term, query_weight) in query_terms {
            let Some(list) = self.postings.get(term) else {
                continue;
            };
            let share = list.iter().map(|(_, w)| f64::from(*w)).sum::<f64>() / self.mass;
            for &(index, weight) in list {
                if let Some(score) = scores.get_mut(&(index as usize)) {
                    *score +=
                        query_weight * (1.0 + f64::from(weight) / (LIKELIHOOD_PRIOR * share)).ln();
                }
            }
        }
        scores
    }

    /// `terms` with the index's words derived from the same root (`react` and `reaction`,
    /// `bill` and `billable`, `payment` and `pay`), each at [`RELATED_WEIGHT`] of its term's
    /// weight: the stemmer joins a word's forms, not the words made from it.
    fn related(&self, terms: Vec<(String, f64)>) -> Vec<(String, f64)> {
        let mut out = terms.clone();
        for (term, weight) in &terms {
            let root = DERIVATIONS
                .iter()
                .find_map(|suffix| {
                    term.strip_suffix(suffix)
                        .filter(|root| root.chars().count() >= 3)
                })
                .unwrap_or(term);
            let forms = std::iter::once(root.to_string())
                .chain(DERIVATIONS.iter().map(|suffix| format!("{root}{suffix}")));
            for form in forms {
                if form != *term
                    && self.postings.contains_key(&form)
                    && !out.iter().any(|(t, _)| *t == form)
                {
                    out.push((form, weight * RELATED_WEIGHT));
                }
            }
        }
        out
    }

    /// `terms` with the index's words that two or three neighbouring words of `query` make
    /// together ("invoice items" finds Stripe's `invoiceitems`, "persistent volume claim"
    /// Kubernetes' `persistentvolumeclaims`), each at [`COMPOUND_WEIGHT`]: their words
    /// already count on their own.
    fn compounds(&self, query: &str, mut terms: Vec<(String, f64)>) -> Vec<(String, f64)> {
        let words = request_words(query);
        for size in 2..=3 {
            for run in words.windows(size) {
                if run.iter().any(|w| STOP_WORDS.contains(&w.as_str())) {
                    continue;
                }
                let joined = stem(&run.concat());
                if self.postings.contains_key(&joined) && !terms.iter().any(|(t, _)| *t == joined) {
                    terms.push((joined, COMPOUND_WEIGHT));
                }
            }
        }
        terms
    }

    /// The names of operations close to `name`, which names none, best first, at most `limit`:
    /// those that differ from it only in case and separators (`pulls_list` for `pulls/list`),
    /// then those a few typing slips away (`getTask` for `getTsk`), nearest first, then what a
    /// search for its words finds. Ties keep the index's order.
    pub fn suggest(&self, name: &str, limit: usize) -> Vec<&str> {
        let wanted = letters(name);
        let mut out: Vec<&str> = self
            .entries
            .iter()
            .filter(|entry| letters(&entry.name) == wanted)
            .map(|entry| entry.name.as_str())
            .collect();
        let most = (wanted.chars().count() / 3).max(1);
        let mut near: Vec<(usize, &str)> = self
            .entries
            .iter()
            .map(|entry| {
                (
                    distance(&letters(&entry.name), &wanted),
                    entry.name.as_str(),
                )
            })
            .filter(|(d, _)| *d <= most)
            .collect();
        // A stable sort: equally near names keep the index's order.
        near.sort_by_key(|(d, _)| *d);
        // Searched by its words: a request drops `pulls/list` whole, as a path it names.
        let name_words = name.replace(|c: char| !c.is_alphanumeric(), " ");
        let found = self.search(&name_words, &Filter::default(), limit);
        let candidates = near.into_iter().map(|(_, candidate)| candidate).chain(
            found
                .iter()
                .map(|hit| self.entries[hit.entry].name.as_str()),
        );
        for candidate in candidates {
            if !out.contains(&candidate) {
                out.push(candidate);
            }
        }
        out.truncate(limit);
        out
    }

    fn admits(&self, index: usize, filter: &Filter<'_>) -> bool {
        let entry = &self.entries[index];
        (!filter.read_only || entry.read_only)
            && filter
                .tag
                .is_none_or(|tag| entry.tags.iter().any(|t| t.eq_ignore_ascii_case(tag)))
    }
}

/// The letters and digits of `s`, lowercased.
fn letters(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// How many letters must be inserted, deleted, replaced or swapped with their neighbour to turn
/// `a` into `b` (optimal string alignment distance).
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut d: Vec<usize> = vec![0; (a.len() + 1) * width];
    for i in 0..=a.len() {
        for j in 0..=b.len() {
            d[i * width + j] = if i == 0 || j == 0 {
                i + j
            } else {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                let mut best = (d[(i - 1) * width + j] + 1)
                    .min(d[i * width + j - 1] + 1)
                    .min(d[(i - 1) * width + j - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    best = best.min(d[(i - 2) * width + j - 2] + 1);
                }
                best
            };
        }
    }
    d[a.len() * width + b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_split_cases_and_separators_and_drop_common_words() {
        assert_eq!(
            terms("pulls/list-review-comments getRepositoryHTTPHooks the_owner"),
            [
                "pull",
                "list",
                "review",
                "comment",
                "get",
                "repositori",
                "http",
                "hook",
                "owner"
            ]
        );
        assert_eq!(
            terms("/repos/{owner}/{repo}/branches"),
            ["repo", "owner", "repo", "branch"]
        );
    }

    #[test]
    fn words_split_at_case_changes_and_are_lowercased_as_text_is() {
        assert_eq!(
            words("listPVs HTTPServer v2Beta café_ÉTÉ ΟΔΟΣ straßeX"),
            [
                "list", "pvs", "http", "server", "v2", "beta", "café", "été", "οδος", "straße", "x"
            ]
        );
        // A capital sigma ending a word is lowercased as a final sigma, as `str::to_lowercase`
        // does, and not as `char::to_lowercase` does.
        assert_eq!(words("ΟΔΟΣ")[0].chars().last(), Some('ς'));
    }

    #[test]
    fn forms_of_a_word_share_a_term() {
        for (a, b) in [
            ("repositories", "repository"),
            ("branches", "branch"),
            ("caches", "cache"),
            ("merged", "merge"),
            ("merging", "merge"),
            ("starred", "star"),
            ("listing", "list"),
            ("issues", "issue"),
            ("subscriptions", "subscription"),
            ("subscribed", "subscribe"),
            ("deployments", "deployment"),
            ("archived", "archive"),
            ("assignees", "assign"),
            ("assignee", "assigned"),
            ("Running", "run"),
        ] {
            assert_eq!(terms(a), terms(b), "{a} and {b}");
        }
        assert_ne!(terms("status"), terms("statu"), "`status` is not a plural");
        assert_ne!(
            terms("user"),
            terms("use"),
            "different words keep different terms"
        );
    }

    #[test]
    fn a_query_adds_what_its_words_stand_for_at_a_lower_weight() {
        let weighted = query_terms("open a PR in my repo");
        let has = |word: &str, weight: f64| weighted.contains(&(terms(word).remove(0), weight));
        // "open" is also an operation's own word (open an issue, a dialog): it counts fully.
        assert!(has("open", 1.0) && has("create", 1.0), "{weighted:?}");
        assert!(has("pull", 1.0) && has("request", 1.0), "{weighted:?}");
        assert!(has("repo", 1.0) && has("repository", 1.0), "{weighted:?}");
        let showing = query_terms("show the details");
        assert!(
            showing.contains(&(terms("details").remove(0), LITERAL_WEIGHT))
                && showing.contains(&(terms("get").remove(0), 1.0)),
            "{showing:?}"
        );
        assert!(has("authenticated", FIRST_PERSON_WEIGHT), "{weighted:?}");
        assert!(!has("list", PLURAL_LIST_WEIGHT), "{weighted:?}");
        let plural = query_terms("branches of the repo");
        assert!(
            plural.contains(&(terms("list").remove(0), PLURAL_LIST_WEIGHT)),
            "{plural:?}"
        );
        assert!(!weighted.iter().any(|(t, _)| t == "my"), "{weighted:?}");
    }

    fn document(name: &str, summary: &str, read_only: bool, tag: &str) -> Document {
        Document {
            entry: Entry {
                name: name.into(),
                request: format!("GET /{name}"),
                read_only,
                summary: summary.into(),
                tags: vec![tag.into()],
            },
            fields: vec![(Field::Name, name.into()), (Field::Summary, summary.into())],
            deprecated: false,
        }
    }

    #[test]
    fn the_index_ranks_the_best_match_first_and_filters() {
        let text = build(&[
            document("listIssues", "List issues\tof a project", true, "issues"),
            document("createIssue", "Create an issue", false, "issues"),
            document("listProjects", "List projects", true, "projects"),
        ]);
        let index = Index::parse(&text).expect("the index reads back");
        assert_eq!(index.entries[0].summary, "List issues of a project");
        let hits = index.search("create a new issue", &Filter::default(), 10);
        assert_eq!(hits[0].entry, 1);
        let read_only = Filter {
            tag: None,
            read_only: true,
        };
        assert!(
            index
                .search("create issue", &read_only, 10)
                .iter()
                .all(|h| h.entry != 1)
        );
        let projects = Filter {
            tag: Some("Projects"),
            read_only: false,
        };
        let hits = index.search("list", &projects, 10);
        assert_eq!(hits.iter().map(|h| h.entry).collect::<Vec<_>>(), [2]);
        assert_eq!(index.search("list", &Filter::default(), 1).len(), 1);
    }

    #[test]
    fn a_phrase_is_read_as_the_verb_it_means() {
        assert_eq!(
            request_words("get rid of old-config.yaml"),
            ["remove", "of", "file"]
        );
        assert_eq!(intent("get rid of old-config.yaml"), Some(Intent::Delete));
        assert_eq!(intent("kick out bob from #eng"), Some(Intent::Delete));
        assert_eq!(intent("tear down the namespace"), Some(Intent::Delete));
        assert_eq!(request_words("how many stars")[0], "count");
        assert_eq!(
            request_words("hand this repository over to them"),
            ["transfer", "this", "repository", "to", "them"]
        );
        assert_eq!(intent("turn the webhook off"), None, "no update, no create");
        assert_eq!(request_words("turn the webhook off")[0], "disable");
        // Only a particle may stand apart from its verb: "log the errors in" is no login.
        assert_eq!(request_words("log the errors in")[0], "log");
        // "get" alone is still a get.
        assert_eq!(intent("get the readme"), Some(Intent::Get));
        let weighted = query_terms("call off the order");
        assert!(
            weighted.contains(&(terms("cancel").remove(0), 1.0)),
            "{weighted:?}"
        );
    }

    #[test]
    fn things_named_in_the_plural_without_a_verb_ask_for_a_list() {
        assert_eq!(intent("what nodes are in the cluster?"), Some(Intent::List));
        assert_eq!(intent("show the branches"), Some(Intent::List));
        assert_eq!(intent("show the readme"), Some(Intent::Get));
        assert_eq!(intent("is node worker-3 ready?"), Some(Intent::Get));
        assert_eq!(intent("node worker-3"), None);
        assert_eq!(intent("what PVs exist?"), Some(Intent::List));
        assert_eq!(intent("merge the branch"), None, "`merge` is no plural");
        // A verb of its own does what it says to the things it names.
        assert_eq!(intent("tag the repo with topics"), None);
        assert!(acts("tag the repo with topics"));
        assert_eq!(intent("pull requests of the repo"), Some(Intent::List));
        let listing = query_terms("show my reminders");
        assert!(
            listing.contains(&(terms("list").remove(0), 1.0))
                && !listing.iter().any(|(t, _)| *t == terms("get").remove(0)),
            "a plural show is a list: {listing:?}"
        );
    }

    fn shaped(name: &str, request: &str, summary: &str) -> Document {
        Document {
            entry: Entry {
                name: name.into(),
                request: request.into(),
                read_only: request.starts_with("GET"),
                summary: summary.into(),
                tags: Vec::new(),
            },
            fields: vec![(Field::Name, name.into()), (Field::Summary, summary.into())],
            deprecated: false,
        }
    }

    #[test]
    fn a_deprecated_operation_ranks_below_the_same_words_undeprecated() {
        // Two operations alike in every word: the first wins the tie, unless it is deprecated.
        let old = shaped("watchNodes", "GET /watch/nodes", "watch the nodes");
        let mut new = old.clone();
        new.entry.name = "watchNodesToo".into();
        let tie = Index::parse(&build(&[old.clone(), new.clone()])).expect("it reads back");
        assert_eq!(tie.search("watch nodes", &Filter::default(), 2)[0].entry, 0);
        let mut old = old;
        old.deprecated = true;
        let index = Index::parse(&build(&[old, new])).expect("it reads back");
        let hits = index.search("watch nodes", &Filter::default(), 2);
        assert_eq!(hits[0].entry, 1, "{hits:?}");
        assert!(hits[1].score < hits[0].score, "{hits:?}");
    }

    #[test]
    fn curated_words_find_an_operation_its_own_text_does_not() {
        let mut transition = shaped(
            "transitionIssue",
            "POST /issues/{key}/transitions",
            "Apply a transition to an issue",
        );
        let get = shaped("getIssue", "GET /issues/{key}", "Get an issue");
        let before = Index::parse(&build(&[transition.clone(), get.clone()])).expect("reads");
        // ("move" alone stands for a transition; "shift" is this tracker's users' word.)
        assert!(before.search("shift", &Filter::default(), 5).is_empty());
        transition
            .fields
            .push((Field::Curated, "shift status column".into()));
        let after = Index::parse(&build(&[transition, get])).expect("reads");
        let hits = after.search("shift the issue to another column", &Filter::default(), 5);
        assert_eq!(hits[0].entry, 0, "{hits:?}");
    }

    #[test]
    fn values_a_request_names_are_not_its_words() {
        assert_eq!(
            without_values("add the label 'needs review' to issue #42 in octocat/hello-world"),
            "add the label to issue in"
        );
        assert_eq!(
            without_values("refund ch_3Nx8 and pi_555 for $200 on worker-7"),
            "refund and for on"
        );
        assert_eq!(
            without_values("get rid of old-config.yaml, it's read-only"),
            "get rid of file it's read-only"
        );
        assert_eq!(without_values("block fraudster@example.com"), "block");
        let weighted = query_terms("follow octocat/hello-world");
        assert!(
            !weighted.iter().any(|(t, _)| t == "octocat"),
            "{weighted:?}"
        );
    }

    #[test]
    fn initials_of_a_name_find_the_operation_a_request_abbreviates() {
        assert_eq!(
            initials("listCoreV1PersistentVolumeClaim"),
            ["pv", "pvc", "vc"]
        );
        assert_eq!(terms("PVs"), terms("pv"));
        let index = Index::parse(&build(&[
            shaped(
                "listCoreV1Pod",
                "GET /api/v1/pods",
                "list objects of kind Pod",
            ),
            shaped(
                "listCoreV1PersistentVolume",
                "GET /api/v1/persistentvolumes",
                "list objects of kind PersistentVolume",
            ),
            shaped(
                "listCoreV1Volume",
                "GET /api/v1/volumes",
                "list objects of kind Volume",
            ),
        ]))
        .expect("reads");
        let hits = index.search("what PVs are there?", &Filter::default(), 3);
        assert_eq!(hits[0].entry, 1, "{hits:?}");
    }

    #[test]
    fn a_word_made_from_the_request_word_matches_it() {
        // Alike but for the word made from "bill"; without it the first would win the tie.
        let index = Index::parse(&build(&[
            shaped("getInfo", "GET /info", "Gets information about the team."),
            shaped(
                "getBillableInfo",
                "GET /billableInfo",
                "Gets billable information about the team.",
            ),
        ]))
        .expect("reads");
        let hits = index.search("information on what is billed", &Filter::default(), 2);
        assert_eq!(hits[0].entry, 1, "{hits:?}");
        // A synonym is found for any form of its word: "reacted" stands for "reaction".
        assert!(
            query_terms("who reacted to it")
                .iter()
                .any(|(t, _)| *t == terms("reaction")[0]),
        );
    }

    #[test]
    fn a_thing_named_otherwise_than_the_api_names_it_counts_as_the_apis_word() {
        let weighted = query_terms("close the ticket");
        assert!(
            weighted.contains(&(terms("issue").remove(0), NOUN_WEIGHT))
                && weighted.contains(&(terms("ticket").remove(0), 1.0)),
            "{weighted:?}"
        );
    }

    #[test]
    fn a_hyphenated_word_describes_what_is_asked_about_unless_it_opens_the_request() {
        let weighted = query_terms("create a customer-facing promo code");
        assert!(
            weighted.contains(&(terms("customer").remove(0), MODIFIER_WEIGHT))
                && weighted.contains(&(terms("code").remove(0), 1.0)),
            "{weighted:?}"
        );
        let weighted = query_terms("re-run the failed workflow");
        assert!(
            weighted.contains(&(terms("run").remove(0), 1.0)),
            "{weighted:?}"
        );
    }

    #[test]
    fn a_questions_past_participle_is_not_what_to_do() {
        let creat = terms("create").remove(0);
        let asked = query_terms("when was the channel created?");
        assert!(
            asked.contains(&(creat.clone(), LITERAL_WEIGHT)),
            "{asked:?}"
        );
        let told = query_terms("create the channel");
        assert!(told.contains(&(creat, 1.0)), "{told:?}");
    }

    #[test]
    fn only_the_first_verb_says_what_to_do() {
        let weighted = query_terms("delete the file I uploaded");
        assert!(
            !weighted.iter().any(|(t, _)| *t == terms("create")[0]),
            "{weighted:?}"
        );
        // A later word that agrees with the first verb still adds its action.
        let weighted = query_terms("register a new card reader");
        assert!(
            weighted.contains(&(terms("create").remove(0), 1.0)),
            "{weighted:?}"
        );
    }

    #[test]
    fn an_operations_own_verb_counts_fully_though_it_has_synonyms() {
        // `conversations.kick` "Removes a user": "remove" is its word, not only a delete.
        let weighted = query_terms("remove bob from the channel");
        assert!(
            weighted.contains(&(terms("remove").remove(0), 1.0))
                && weighted.contains(&(terms("delete").remove(0), 1.0)),
            "{weighted:?}"
        );
    }

    #[test]
    fn an_imperative_of_another_verb_ranks_the_operations_that_write_first() {
        // Alike but for their method; without the rule the first would win the tie.
        let index = Index::parse(&build(&[
            shaped(
                "chargeRefundOne",
                "GET /charges/{charge}/refunds/{refund}",
                "Charge refund",
            ),
            shaped(
                "chargeRefundTwo",
                "POST /charges/{charge}/refunds",
                "Charge refund",
            ),
        ]))
        .expect("reads");
        let first = |query: &str| index.search(query, &Filter::default(), 2)[0].entry;
        assert_eq!(first("refund the charge"), 1);
        assert_eq!(first("give back the charge"), 1, "a phrase is its verb");
        // A question, or a verb that says what to do, is read as before.
        assert_eq!(first("was the charge refunded?"), 0);
        assert_eq!(first("show the charge refund"), 0);
        assert!(acts("archive the price") && acts("issue a card for bob"));
        assert!(!acts("the charge?") && !acts("list the charges") && !acts("which charge"));
    }

    #[test]
    fn words_of_general_use_stand_for_what_apis_call_them() {
        let has = |query: &str, word: &str| {
            query_terms(query)
                .iter()
                .any(|(term, _)| *term == terms(word)[0])
        };
        assert!(has("cap the namespace at 20 CPUs", "quota"));
        assert!(has("send this at 9am tomorrow", "schedule"));
        assert!(has("make issue 50 a child of issue 10", "sub"));
        assert!(has("buy carbon removal", "order"));
        assert!(has("secrets of every namespace", "all"));
        assert_eq!(request_words("log out everywhere")[0], "logout");
        assert_eq!(request_words("roll back the release")[0], "rollback");
    }

    #[test]
    fn a_requests_preamble_and_the_names_it_gives_are_not_its_words() {
        assert_eq!(
            request_words("can you please delete the branch"),
            request_words("delete the branch")
        );
        assert_eq!(
            request_words("I'd like to list the pods"),
            ["list", "the", "pods"]
        );
        assert_eq!(intent("how do I delete a tag"), Some(Intent::Delete));
        // A polite question still asks to act.
        assert!(acts("could you archive the price?"));
        assert!(!acts("was the price archived?"));
        assert_eq!(
            request_words("kill pod web in namespace jobs"),
            ["kill", "pod", "web", "in", "namespace"]
        );
        assert_eq!(
            request_words("add a customer named bob"),
            ["add", "a", "customer", "named"]
        );
        // Politeness is no plural: "thanks" asks for no list.
        assert_eq!(intent("delete the branch, thanks"), Some(Intent::Delete));
        assert_eq!(intent("merge the branch thanks"), None);
    }

    #[test]
    fn a_name_that_repeats_its_method_says_nothing_of_the_shape() {
        // Stripe's `PostTaxRatesTaxRate` updates one rate: no create, though its name says Post.
        assert!(!shape_matches(
            Intent::Create,
            "PostTaxRatesTaxRate",
            "POST /v1/tax_rates/{tax_rate}"
        ));
        assert!(shape_matches(
            Intent::Create,
            "PostTaxRates",
            "POST /v1/tax_rates"
        ));
        // An RPC-style name still says it.
        assert!(shape_matches(
            Intent::Delete,
            "chat_delete",
            "POST /chat.delete"
        ));
    }

    #[test]
    fn something_new_is_made_by_the_operation_on_the_collection() {
        // Alike but for their paths; without the rule the item's would win the tie.
        let index = Index::parse(&build(&[
            shaped("issueCardOne", "POST /issuing/cards/{card}", "Issuing card"),
            shaped("issueCardTwo", "POST /issuing/cards", "Issuing card"),
        ]))
        .expect("reads");
        let first = |query: &str| index.search(query, &Filter::default(), 2)[0].entry;
        assert_eq!(first("issue a virtual card"), 1);
        assert_eq!(first("issue the card"), 0);
    }

    #[test]
    fn operations_only_tests_use_rank_below_the_others_unless_asked_for() {
        let index = Index::parse(&build(&[
            shaped(
                "expireTestCard",
                "POST /test_helpers/cards/{card}/expire",
                "Expire a card",
            ),
            shaped("expireCard", "POST /cards/{card}/expire", "Expire a card"),
        ]))
        .expect("reads");
        let first = |query: &str| index.search(query, &Filter::default(), 2)[0].entry;
        assert_eq!(first("expire the card"), 1);
        assert_eq!(first("simulate expiring a card in test mode"), 0);
    }

    #[test]
    fn two_words_of_a_request_find_the_one_word_they_make() {
        let index = Index::parse(&build(&[
            shaped(
                "PostInvoiceitems",
                "POST /v1/invoiceitems",
                "Create an invoice item",
            ),
            shaped("PostInvoices", "POST /v1/invoices", "Create an invoice"),
        ]))
        .expect("reads");
        let hits = index.search("new invoice item", &Filter::default(), 2);
        assert_eq!(hits[0].entry, 0, "{hits:?}");
        assert!(
            query_terms("they paid the bill")
                .iter()
                .any(|(t, _)| *t == terms("pay")[0]),
            "an irregular past is its verb"
        );
    }

    #[test]
    fn an_action_finds_the_other_words_apis_use_for_it() {
        // Kubernetes reads a pod where a request shows it.
        let weighted = query_terms("show the pod");
        assert!(
            weighted.contains(&(terms("read").remove(0), ACTION_FORM_WEIGHT)),
            "{weighted:?}"
        );
        let weighted = query_terms("take the label away");
        assert!(
            weighted.contains(&(terms("remove").remove(0), 1.0)),
            "{weighted:?}"
        );
        // Three neighbouring words find the word they make, above the one two of them make.
        let index = Index::parse(&build(&[
            shaped(
                "deletePersistentVolume",
                "DELETE /persistentvolumes/{name}",
                "delete a PersistentVolume",
            ),
            shaped(
                "deletePersistentVolumeClaim",
                "DELETE /persistentvolumeclaims/{name}",
                "delete a PersistentVolumeClaim",
            ),
        ]))
        .expect("reads");
        let hits = index.search("delete the persistent volume claim", &Filter::default(), 2);
        assert_eq!(hits[0].entry, 1, "{hits:?}");
    }

    #[test]
    fn a_misspelt_name_suggests_the_nearest_names_first() {
        // The issue's case: `getTsk` suggested `getAttachment` and `getGoals` before `getTask`.
        let names = [
            "getAttachment",
            "getGoals",
            "listTasks",
            "getTask",
            "getTasks",
            "deleteTask",
            "pulls/list",
        ];
        let documents: Vec<Document> = names
            .iter()
            .map(|name| document(name, "", true, "work"))
            .collect();
        let index = Index::parse(&build(&documents)).expect("it reads back");
        let suggested = index.suggest("getTsk", 5);
        assert_eq!(suggested[..2], ["getTask", "getTasks"], "{suggested:?}");
        // A swap of two letters is one slip; case and separators are none.
        assert_eq!(index.suggest("gteTask", 1), ["getTask"]);
        assert_eq!(index.suggest("PULLS_LIST", 1), ["pulls/list"]);
        assert_eq!(distance("gettsk", "gettask"), 1);
        assert_eq!(distance("gtetask", "gettask"), 1);
    }

    #[test]
    fn below_the_first_result_an_operation_the_second_model_ranks_first_climbs() {
        // Every operation says "alpha"; the last says nothing else, the first most else, the
        // others more and more.
        let documents: Vec<Document> = (0..25)
            .map(|k| match k {
                0 => 40,
                24 => 0,
                k => 10 + k,
            })
            .enumerate()
            .map(|(k, filler)| {
                let summary = format!("alpha{}", " filler".repeat(filler));
                shaped(&format!("op{k}"), "GET /things", &summary)
            })
            .collect();
        let index = Index::parse(&build(&documents)).expect("reads");
        let terms = query_terms("alpha");
        let likelihood = index.likelihood(
            &terms,
            &(0..25)
                .map(|entry| Hit { entry, score: 1.0 })
                .collect::<Vec<_>>(),
        );
        assert!(likelihood[&24] > likelihood[&1] && likelihood[&1] > likelihood[&0]);
        // Handed in the first ranking's order (0 first, 24 last), as `search` would.
        let mut hits: Vec<Hit> = (0..25)
            .map(|entry| Hit {
                entry,
                score: 25.0 - entry as f64,
            })
            .collect();
        index.fuse(&mut hits, &terms);
        let place = |entry: usize| hits.iter().position(|h| h.entry == entry).expect("kept");
        assert_eq!(
            place(0),
            0,
            "the first result stays, though likelihood ranks it last"
        );
        assert!(
            place(24) < place(20),
            "{:?}",
            hits.iter().map(|h| h.entry).collect::<Vec<_>>()
        );
        assert_eq!(hits.len(), 25);
    }

    #[test]
    fn a_damaged_index_is_an_error_not_a_panic() {
        assert!(Index::parse("nonsense").is_err());
        assert!(Index::parse(&format!("{FORMAT}\nt\tword\t7:1.0")).is_err());
    }
}

//! The resources of the API as they are serialized in responses: projects, users, issues,
//! transitions and page envelopes, with the integer codes for states and priorities and a
//! UTC timestamp type.

use std::fmt;

use serde::{Serialize, Serializer};
use uuid::Uuid;

/// A project (`Project` in the document).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Project {
    pub id: Uuid,
    pub key: String,
    pub name: String,
    pub description: String,
}

/// A user (`User` in the document).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct User {
    pub id: Uuid,
    pub username: String,
    pub display_name: String,
    pub email: String,
}

/// An issue with all its fields (`Issue` in the document).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Issue {
    pub id: Uuid,
    pub key: String,
    pub number: u32,
    pub project_id: Uuid,
    pub title: String,
    pub description: String,
    pub state: State,
    pub priority: Priority,
    /// Serialized as `null` when nobody is assigned.
    pub assignee_id: Option<Uuid>,
    pub reporter_id: Uuid,
    pub labels: Vec<String>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A transition from an issue's current state to `to_state` (`Transition` in the document).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Transition {
    pub id: Uuid,
    pub name: &'static str,
    pub to_state: State,
}

/// `TransitionList` in the document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TransitionList {
    pub items: Vec<Transition>,
}

/// A page envelope (`ProjectPage`, `UserPage`, `IssuePage` in the document).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub page: u32,
    pub per_page: u32,
    pub total: usize,
}

/// The state of an issue, serialized as its integer code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum State {
    Open = 1,
    InProgress = 2,
    Done = 3,
}

impl State {
    /// Every state, in code order.
    pub const ALL: [State; 3] = [State::Open, State::InProgress, State::Done];

    /// The integer code used by the API.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The state with this code, if any.
    pub fn from_code(code: i64) -> Option<State> {
        Self::ALL.into_iter().find(|s| i64::from(s.code()) == code)
    }

    /// A readable name, used in error messages.
    pub fn label(self) -> &'static str {
        match self {
            State::Open => "open",
            State::InProgress => "in progress",
            State::Done => "done",
        }
    }
}

impl Serialize for State {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u8(self.code())
    }
}

/// The priority of an issue, serialized as its integer code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Priority {
    Low = 1,
    Medium = 2,
    High = 3,
}

impl Priority {
    /// Every priority, in code order.
    pub const ALL: [Priority; 3] = [Priority::Low, Priority::Medium, Priority::High];

    /// The integer code used by the API.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The priority with this code, if any.
    pub fn from_code(code: i64) -> Option<Priority> {
        Self::ALL.into_iter().find(|p| i64::from(p.code()) == code)
    }
}

impl Serialize for Priority {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u8(self.code())
    }
}

/// A UTC instant with second precision, serialized as RFC 3339 (`2026-01-01T05:00:00Z`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    unix_seconds: i64,
}

impl Timestamp {
    /// 2026-01-01T00:00:00Z, the epoch of the seed data.
    pub const SEED_EPOCH: Timestamp = Timestamp {
        unix_seconds: 1_767_225_600,
    };

    /// This instant plus `seconds`.
    pub fn plus_seconds(self, seconds: i64) -> Timestamp {
        Timestamp {
            unix_seconds: self.unix_seconds + seconds,
        }
    }

    /// This instant plus `hours`.
    pub fn plus_hours(self, hours: i64) -> Timestamp {
        self.plus_seconds(hours * 3600)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let days = self.unix_seconds.div_euclid(86_400);
        let seconds_of_day = self.unix_seconds.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        write!(
            f,
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
            seconds_of_day / 3600,
            seconds_of_day % 3600 / 60,
            seconds_of_day % 60
        )
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_format_as_rfc3339_utc() {
        assert_eq!(Timestamp::SEED_EPOCH.to_string(), "2026-01-01T00:00:00Z");
        assert_eq!(
            Timestamp::SEED_EPOCH.plus_hours(42).to_string(),
            "2026-01-02T18:00:00Z"
        );
        assert_eq!(
            Timestamp::SEED_EPOCH
                .plus_hours(24 * 59)
                .plus_seconds(61)
                .to_string(),
            "2026-03-01T00:01:01Z"
        );
        assert_eq!(
            Timestamp { unix_seconds: 0 }.to_string(),
            "1970-01-01T00:00:00Z"
        );
        assert_eq!(
            Timestamp {
                unix_seconds: 951_782_400
            }
            .to_string(),
            "2000-02-29T00:00:00Z"
        );
    }

    #[test]
    fn codes_round_trip() {
        for state in State::ALL {
            assert_eq!(State::from_code(i64::from(state.code())), Some(state));
        }
        for priority in Priority::ALL {
            assert_eq!(
                Priority::from_code(i64::from(priority.code())),
                Some(priority)
            );
        }
        assert_eq!(State::from_code(4), None);
        assert_eq!(Priority::from_code(0), None);
    }
}

//! Typed identifiers: a table's id, a pool's id and a premio code are not interchangeable strings.
//!
//! Each is a shared immutable string (cloning one is a reference count, not a copy),
//! written in the journal, the snapshots and every report exactly as the text it holds
//! (`serde(transparent)`), so the types change no byte anyone reads. A map keyed by one
//! is looked up with a plain `&str` (`Borrow<str>`).
//!
//! One is never taken for the other:
//!
//! ```compile_fail
//! let table = pozo_engine::TableId::new("B1");
//! let pool: pozo_engine::PoolId = table;
//! ```

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(Arc<str>);

        impl $name {
            /// The id of this text.
            pub fn new(id: &str) -> $name {
                $name(Arc::from(id))
            }

            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl Default for $name {
            fn default() -> $name {
                $name::new("")
            }
        }

        impl Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                formatter.write_str(&self.0)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&*self.0, formatter)
            }
        }

        impl From<&str> for $name {
            fn from(id: &str) -> $name {
                $name::new(id)
            }
        }

        impl From<&String> for $name {
            fn from(id: &String) -> $name {
                $name::new(id)
            }
        }

        impl From<String> for $name {
            fn from(id: String) -> $name {
                $name(Arc::from(id))
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0.to_string()
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                &*self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                &*self.0 == *other
            }
        }

        impl PartialEq<String> for $name {
            fn eq(&self, other: &String) -> bool {
                *self.0 == **other
            }
        }

        impl PartialEq<$name> for str {
            fn eq(&self, other: &$name) -> bool {
                self == &*other.0
            }
        }

        impl PartialEq<$name> for &str {
            fn eq(&self, other: &$name) -> bool {
                *self == &*other.0
            }
        }

        impl PartialEq<$name> for String {
            fn eq(&self, other: &$name) -> bool {
                **self == *other.0
            }
        }
    };
}

id!(
    /// A table's id as the layout names it (`B1`, `R3`…).
    TableId
);

id!(
    /// A pool's id as its rulebook names it (`blackjack-sietes`, `ruleta-grillos`…).
    PoolId
);

id!(
    /// A premio code as its rulebook names it, Spanish upper snake case
    /// (`TRES_SIETES_CORAZONES`, `GRILLO_ORO`, `PREMIO_INSTANTANEO`).
    PrizeCode
);

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn an_id_is_written_as_its_text_and_looked_up_by_it() {
        let table = TableId::new("B1");
        assert_eq!(serde_json::to_string(&table).expect("json"), "\"B1\"");
        assert_eq!(serde_json::from_str::<TableId>("\"B1\"").expect("json"), table);
        assert_eq!(format!("{table} {table:?}"), "B1 \"B1\"");
        let mut tables = BTreeMap::new();
        tables.insert(table.clone(), 7);
        assert_eq!(tables.get("B1"), Some(&7));
        assert_eq!(table, "B1");
        assert_eq!("B1", table);
        assert_ne!(table, *"B2");
    }
}

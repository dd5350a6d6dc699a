//! A jornada's figures by local hour, as a table's meters keep them (`model::TableDay`).

use std::collections::BTreeMap;

use pozo_engine::money::Money;
use serde::{Deserialize, Serialize};

use super::sorted::Sorted;

/// A jornada's IPA and PPPA by local hour (0 to 23; Form 4218): the hours booked, in order, in
/// one vector. A table's meters are copied once a batch for each table the batch touched
/// (`State::day_mut`, copy on write); with their hours in a `BTreeMap` the copy walked the map's
/// nodes, where a vector's is one allocation and a copy. (Held in place, the 24 hours made the
/// meters 1.1 KB, and a batch touching a thousand tables copied over a megabyte: tried in
/// docs/benchmarks.md, issue 47 step 13, and not kept.) Read and written as the map it was,
/// `{"21": [IPA, PPPA]}`; an hour booked to zero (a bet refunded) stays booked.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Hours(Sorted<u32, (Money, Money)>);

impl Hours {
    /// The hour's figures, booked (at zero) if they were not: a local hour is 0 to 23.
    pub fn at(&mut self, hour: u32) -> &mut (Money, Money) {
        assert!(hour < 24, "a local hour is 0 to 23, not {hour}");
        self.0.get_mut_or_insert_with(hour, || (Money::ZERO, Money::ZERO))
    }

    pub fn get(&self, hour: &u32) -> Option<&(Money, Money)> {
        self.0.get(hour)
    }

    pub fn contains_key(&self, hour: &u32) -> bool {
        self.0.contains_key(hour)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The hours booked, in order.
    pub fn iter(&self) -> HoursIter<'_> {
        HoursIter(self.0.as_slice().iter())
    }
}

/// The hours booked, in order, with their figures ([`Hours::iter`]).
#[derive(Clone, Debug)]
pub struct HoursIter<'a>(std::slice::Iter<'a, (u32, (Money, Money))>);

impl<'a> Iterator for HoursIter<'a> {
    type Item = (&'a u32, &'a (Money, Money));

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(hour, figures)| (hour, figures))
    }
}

impl<'a> IntoIterator for &'a Hours {
    type Item = (&'a u32, &'a (Money, Money));
    type IntoIter = HoursIter<'a>;
    fn into_iter(self) -> HoursIter<'a> {
        self.iter()
    }
}

impl std::fmt::Debug for Hours {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl Serialize for Hours {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for Hours {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Hours, D::Error> {
        let map = BTreeMap::<u32, (Money, Money)>::deserialize(deserializer)?;
        let mut hours = Hours::default();
        for (hour, figures) in map {
            if hour >= 24 {
                return Err(serde::de::Error::custom(format!("hours: {hour} is not a local hour (0 to 23)")));
            }
            *hours.at(hour) = figures;
        }
        Ok(hours)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pesos(text: &str) -> Money {
        text.parse().expect("an amount")
    }

    /// The same JSON as the map it replaced, read back the same, an hour booked at zero kept,
    /// and an hour that no clock gives refused.
    #[test]
    fn hours_read_and_write_as_the_map_they_were() {
        let mut hours = Hours::default();
        hours.at(21).0 += pesos("10.50");
        hours.at(3).1 += pesos("200");
        hours.at(0);
        let map: BTreeMap<u32, (Money, Money)> = BTreeMap::from([
            (0, (Money::ZERO, Money::ZERO)),
            (3, (Money::ZERO, pesos("200"))),
            (21, (pesos("10.50"), Money::ZERO)),
        ]);
        let json = serde_json::to_string(&hours).expect("serializes");
        assert_eq!(json, serde_json::to_string(&map).expect("serializes"));
        assert_eq!(serde_json::from_str::<Hours>(&json).expect("reads back"), hours);
        assert_eq!(hours.iter().map(|(hour, figures)| (*hour, *figures)).collect::<BTreeMap<_, _>>(), map);
        assert_eq!(format!("{hours:?}"), format!("{map:?}"));
        assert_eq!(hours.get(&0), Some(&(Money::ZERO, Money::ZERO)), "booked at zero, still booked");
        assert!(!hours.contains_key(&1) && hours.get(&1).is_none() && !hours.contains_key(&24));
        assert!(Hours::default().is_empty() && !hours.is_empty());
        let error = serde_json::from_str::<Hours>(r#"{"24": ["1.00", "0.00"]}"#).expect_err("no hour 24");
        assert!(error.to_string().contains("24 is not a local hour"), "{error}");
    }
}

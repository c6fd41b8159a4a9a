//! [`Cities`]: the one home of every city in the scene, addressed by [`CityKey`].

use std::collections::BTreeMap;

use bevy::prelude::*;
use highrise_ingest::SessionId;

use super::model::{City, CityKey};

/// Every city of the scene by its key: each session's own (made when the city systems first
/// see the session) and the compare view's aligned pair and diff city (always there, without a
/// plan until the compare view makes one). Sessions keep their session data in
/// [`Sessions`](crate::viewer::sessions::Sessions), the compare view its state in
/// [`Compare`](crate::viewer::compare::Compare); the cities themselves live only here.
///
/// Iteration follows the keys: the sessions' cities in connection order, then A, B and the
/// diff city.
#[derive(Resource, Debug)]
pub struct Cities {
    by_key: BTreeMap<CityKey, City>,
}

impl Default for Cities {
    fn default() -> Self {
        Self {
            by_key: [CityKey::AlignedA, CityKey::AlignedB, CityKey::Diff]
                .into_iter()
                .map(|key| (key, City::default()))
                .collect(),
        }
    }
}

impl Cities {
    /// The city behind a key.
    pub fn get(&self, key: CityKey) -> Option<&City> {
        self.by_key.get(&key)
    }

    pub fn get_mut(&mut self, key: CityKey) -> Option<&mut City> {
        self.by_key.get_mut(&key)
    }

    /// A session's own city.
    pub fn session(&self, session_id: SessionId) -> Option<&City> {
        self.get(CityKey::Session(session_id))
    }

    pub fn session_mut(&mut self, session_id: SessionId) -> Option<&mut City> {
        self.get_mut(CityKey::Session(session_id))
    }

    /// The city behind a key, made (empty) if there is none yet.
    pub fn entry(&mut self, key: CityKey) -> &mut City {
        self.by_key.entry(key).or_default()
    }

    /// Every city (shown or not) with its key.
    pub fn iter(&self) -> impl Iterator<Item = (CityKey, &City)> + '_ {
        self.by_key.iter().map(|(&key, city)| (key, city))
    }

    /// Every city (shown or not) with its key.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (CityKey, &mut City)> + '_ {
        self.by_key.iter_mut().map(|(&key, city)| (key, city))
    }
}

impl std::ops::Index<CityKey> for Cities {
    type Output = City;

    /// The city behind a key; panics when there is none.
    fn index(&self, key: CityKey) -> &City {
        self.get(key)
            .unwrap_or_else(|| panic!("no city {key:?} in the scene"))
    }
}

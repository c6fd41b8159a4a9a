//! Version "after": a refactoring moved `Catalog` into `catalog::search` and `Cart` and
//! `PriceEngine` into a new `checkout` module — and `PriceEngine::quote` became 6× as costly
//! (the regression compare mode should make obvious).

pub mod catalog {
    pub mod search {
        crate::define_catalog!();
    }
}

pub mod checkout {
    pub mod cart {
        crate::define_cart!();
    }

    pub mod pricing {
        crate::define_pricing!(12);
    }
}

/// The "after" shop.
#[derive(Debug)]
pub struct Shop {
    catalog: catalog::search::Catalog,
    cart: checkout::cart::Cart,
    pricing: checkout::pricing::PriceEngine,
}

impl Shop {
    pub fn new() -> Self {
        Self {
            catalog: catalog::search::Catalog::new(2000),
            cart: checkout::cart::Cart::default(),
            pricing: checkout::pricing::PriceEngine::default(),
        }
    }
}

impl Default for Shop {
    fn default() -> Self {
        Self::new()
    }
}

impl crate::http::Store for Shop {
    fn search(&mut self, query: &str) -> Vec<u32> {
        self.catalog.search(query)
    }
    fn add_to_cart(&mut self, id: u32) {
        self.cart.add(id);
    }
    fn checkout(&mut self) -> u64 {
        let prices = self.pricing.quote(&self.cart.items);
        let total = self.cart.total(&prices);
        self.cart.clear();
        total
    }
}

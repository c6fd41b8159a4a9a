//! Version "before": `catalog`, `cart` and `pricing` side by side; `PriceEngine::quote` is
//! cheap.

pub mod catalog {
    crate::define_catalog!();
}

pub mod cart {
    crate::define_cart!();
}

pub mod pricing {
    crate::define_pricing!(2);
}

/// The "before" shop.
#[derive(Debug)]
pub struct Shop {
    catalog: catalog::Catalog,
    cart: cart::Cart,
    pricing: pricing::PriceEngine,
}

impl Shop {
    pub fn new() -> Self {
        Self {
            catalog: catalog::Catalog::new(2000),
            cart: cart::Cart::default(),
            pricing: pricing::PriceEngine::default(),
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

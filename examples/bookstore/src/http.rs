//! The request handler, the same in both variants: it only knows the [`Store`] interface.

/// What a variant provides.
pub trait Store: Send {
    fn search(&mut self, query: &str) -> Vec<u32>;
    fn add_to_cart(&mut self, id: u32);
    fn checkout(&mut self) -> u64;
}

/// One request.
#[derive(Debug, Clone)]
pub enum Request {
    Search(String),
    Buy(String),
}

#[derive(Debug)]
pub struct Server<S> {
    store: S,
    pub handled: u64,
    pub revenue: u64,
}

#[highrise_agent::profile]
impl<S: Store> Server<S> {
    pub fn new(store: S) -> Self {
        Self {
            store,
            handled: 0,
            revenue: 0,
        }
    }

    pub fn handle(&mut self, request: &Request) -> usize {
        self.handled += 1;
        match request {
            Request::Search(query) => self.store.search(query).len(),
            Request::Buy(query) => self.buy(query),
        }
    }

    fn buy(&mut self, query: &str) -> usize {
        let hits = self.store.search(query);
        for &id in hits.iter().take(3) {
            self.store.add_to_cart(id);
        }
        self.revenue += self.store.checkout();
        hits.len().min(3)
    }
}

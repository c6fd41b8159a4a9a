//! A toy compiler instrumented only with `tracing` (`#[tracing::instrument]` and spans): no
//! highrise code at all in here. `main` adds `highrise_agent::layer()` to the subscriber and
//! the program shows up in highrise.
//!
//! Pipeline, one module each: `lexer` → `parser` → `optimizer` → `codegen`; a pool of
//! `compiler-N` threads compiles generated source files.
//!
//! Class names come from span names of the form `Type::method`
//! (`#[instrument(name = "Lexer::tokenize")]`); plain function spans get the module as class.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub mod lexer {
    /// A token of the toy language.
    #[derive(Debug, Clone, PartialEq)]
    pub enum Token {
        Number(i64),
        Ident(String),
        Op(char),
    }

    #[derive(Debug, Default)]
    pub struct Lexer;

    impl Lexer {
        #[tracing::instrument(name = "Lexer::tokenize", skip_all, fields(bytes = source.len()))]
        pub fn tokenize(&self, source: &str) -> Vec<Token> {
            source
                .split_whitespace()
                .map(|word| self.classify(word))
                .collect()
        }

        #[tracing::instrument(name = "Lexer::classify", skip_all, level = "trace")]
        fn classify(&self, word: &str) -> Token {
            match word.parse::<i64>() {
                Ok(number) => Token::Number(number),
                Err(_) if word.len() == 1 && "+-*".contains(word) => {
                    Token::Op(word.chars().next().unwrap_or('+'))
                }
                Err(_) => Token::Ident(word.to_string()),
            }
        }
    }
}

pub mod parser {
    use crate::lexer::Token;

    /// Expressions: numbers, names, binary operations.
    #[derive(Debug, Clone, PartialEq)]
    pub enum Expr {
        Number(i64),
        Name(String),
        Binary(char, Box<Expr>, Box<Expr>),
    }

    /// Parses `a op b op c ...` left to right.
    #[tracing::instrument(skip_all, fields(tokens = tokens.len()))]
    pub fn parse(tokens: &[Token]) -> Option<Expr> {
        let mut iter = tokens.iter();
        let mut expr = atom(iter.next()?)?;
        while let (Some(Token::Op(op)), Some(next)) = (iter.next(), iter.next()) {
            expr = Expr::Binary(*op, Box::new(expr), Box::new(atom(next)?));
        }
        Some(expr)
    }

    fn atom(token: &Token) -> Option<Expr> {
        match token {
            Token::Number(n) => Some(Expr::Number(*n)),
            Token::Ident(name) => Some(Expr::Name(name.clone())),
            Token::Op(_) => None,
        }
    }
}

pub mod optimizer {
    use crate::parser::Expr;

    #[derive(Debug, Default)]
    pub struct Optimizer {
        pub folded: u64,
    }

    impl Optimizer {
        /// Constant folding, bottom up.
        #[tracing::instrument(name = "Optimizer::fold", skip_all)]
        pub fn fold(&mut self, expr: Expr) -> Expr {
            self.fold_inner(expr)
        }

        fn fold_inner(&mut self, expr: Expr) -> Expr {
            match expr {
                Expr::Binary(op, left, right) => {
                    let (left, right) = (self.fold_inner(*left), self.fold_inner(*right));
                    match (&left, &right) {
                        (Expr::Number(a), Expr::Number(b)) => {
                            self.folded += 1;
                            Expr::Number(match op {
                                '+' => a.wrapping_add(*b),
                                '-' => a.wrapping_sub(*b),
                                _ => a.wrapping_mul(*b),
                            })
                        }
                        _ => Expr::Binary(op, Box::new(left), Box::new(right)),
                    }
                }
                other => other,
            }
        }
    }
}

pub mod codegen {
    use crate::parser::Expr;

    #[derive(Debug, Default)]
    pub struct Emitter {
        pub code: Vec<String>,
    }

    impl Emitter {
        #[tracing::instrument(name = "Emitter::emit", skip_all)]
        pub fn emit(&mut self, expr: &Expr) -> usize {
            self.code.clear();
            self.emit_inner(expr);
            let _link = tracing::info_span!("Emitter::link").entered();
            self.code.len()
        }

        fn emit_inner(&mut self, expr: &Expr) {
            match expr {
                Expr::Number(n) => self.code.push(format!("push {n}")),
                Expr::Name(name) => self.code.push(format!("load {name}")),
                Expr::Binary(op, left, right) => {
                    self.emit_inner(left);
                    self.emit_inner(right);
                    self.code.push(format!("op {op}"));
                }
            }
        }
    }
}

/// Compiles one source text; returns the number of instructions.
#[tracing::instrument(skip_all)]
pub fn compile(source: &str) -> usize {
    let tokens = lexer::Lexer.tokenize(source);
    let Some(expr) = parser::parse(&tokens) else {
        tracing::warn!("parse error");
        return 0;
    };
    let expr = optimizer::Optimizer::default().fold(expr);
    codegen::Emitter::default().emit(&expr)
}

/// A generated source file of `terms` terms.
pub fn source(seed: u64, terms: usize) -> String {
    let mut x = seed | 1;
    let mut text = String::new();
    for i in 0..terms {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if i > 0 {
            text.push_str([" + ", " - ", " * "][(x % 3) as usize]);
        }
        if x % 5 == 0 {
            text.push_str(&format!("v{}", x % 10));
        } else {
            text.push_str(&(x % 1000).to_string());
        }
    }
    text
}

/// Compiles generated files on `threads` threads for `duration`; returns files compiled.
pub fn run(threads: usize, duration: Duration) -> u64 {
    let stop = Arc::new(AtomicBool::new(false));
    let workers: Vec<_> = (0..threads.max(1))
        .filter_map(|index| {
            let stop = Arc::clone(&stop);
            std::thread::Builder::new()
                .name(format!("compiler-{index}"))
                .spawn(move || {
                    let mut files = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        let text = source(files * 31 + index as u64, 50 + (files % 200) as usize);
                        compile(&text);
                        files += 1;
                        std::thread::sleep(Duration::from_micros(200));
                    }
                    files
                })
                .ok()
        })
        .collect();
    let deadline = Instant::now() + duration;
    while Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    stop.store(true, Ordering::Relaxed);
    workers.into_iter().filter_map(|w| w.join().ok()).sum()
}

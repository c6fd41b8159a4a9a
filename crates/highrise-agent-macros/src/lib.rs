//! `highrise-agent-macros`: the `#[profile]` attribute of `highrise-agent`.
//!
//! Where to start: [`macro@profile`], the crate's only item. Use it through
//! `highrise_agent::profile`; the generated code names `::highrise_agent`, so
//! the agent must be a dependency under that name. See the agent's documentation for what the
//! attribute records and how method names are chosen.
//!
//! With the `enable` feature off (it follows `highrise-agent`'s `enable`), the attribute
//! returns the item unchanged.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{quote, quote_spanned, ToTokens};
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{parse_macro_input, Attribute, Block, Item, LitStr, Signature, Token, Type};

/// Marks a function, a method, or every method of an `impl` block, as a highrise method.
///
/// - On a free function: package = the module path, class = the module's last segment,
///   method = the function's name.
/// - On an `impl` block: every method with a body is instrumented with class = the impl's self
///   type (`impl Board` and `impl Display for Board` both give `Board`; a trait impl also sets
///   the definition's signature to `impl Display`). `#[profile(skip)]` on a method leaves it
///   out; `#[profile(name = "...")]` on a method renames it.
/// - On a single method without the attribute on its `impl`: the attribute cannot see the
///   self type, so class = the module's last segment unless given: `#[profile(class = "Board")]`.
///
/// Options: `class = "..."`, `name = "..."` (the method name), `skip`.
/// `async fn` and `const fn` are refused: a scope guard cannot follow a future across
/// threads; instrument async code with `tracing` spans and `highrise_agent::layer()`.
#[proc_macro_attribute]
pub fn profile(args: TokenStream, item: TokenStream) -> TokenStream {
    let options = parse_macro_input!(args as Options);
    let item = parse_macro_input!(item as Item);
    match expand(options, item) {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

/// The attribute's arguments.
#[derive(Default)]
struct Options {
    class: Option<LitStr>,
    name: Option<LitStr>,
    skip: bool,
}

impl Parse for Options {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut options = Options::default();
        while !input.is_empty() {
            let key: syn::Ident = input.parse()?;
            match key.to_string().as_str() {
                "skip" => options.skip = true,
                "class" | "name" => {
                    input.parse::<Token![=]>()?;
                    let value: LitStr = input.parse()?;
                    if key == "class" {
                        options.class = Some(value);
                    } else {
                        options.name = Some(value);
                    }
                }
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!("unknown profile option `{other}`; expected `class = \"..\"`, `name = \"..\"` or `skip`"),
                    ))
                }
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(options)
    }
}

fn expand(options: Options, item: Item) -> syn::Result<TokenStream2> {
    if options.skip || !cfg!(feature = "enable") {
        // The methods' own `#[profile(..)]` options belong to this attribute: remove them so
        // a bare `#[profile(skip)]` inside the impl does not need to resolve on its own.
        let mut item = item;
        if let Item::Impl(block) = &mut item {
            for member in &mut block.items {
                if let syn::ImplItem::Fn(method) = member {
                    method.attrs.retain(|attr| !is_profile_attr(attr));
                }
            }
        }
        return Ok(item.into_token_stream());
    }
    match item {
        Item::Fn(mut function) => {
            let class = options.class.map(|lit| lit.value());
            function.block = Box::new(instrument(
                &function.sig,
                &function.block,
                class.as_deref(),
                options.name,
                None,
            )?);
            Ok(function.into_token_stream())
        }
        Item::Impl(mut block) => {
            let class = match options.class {
                Some(lit) => lit.value(),
                None => type_name(&block.self_ty),
            };
            let signature = block.trait_.as_ref().map(|(_, path, _)| {
                format!("impl {}", compact(&path.to_token_stream().to_string()))
            });
            for member in &mut block.items {
                let syn::ImplItem::Fn(method) = member else {
                    continue;
                };
                let mut method_options = Options::default();
                let mut kept = Vec::with_capacity(method.attrs.len());
                for attr in method.attrs.drain(..) {
                    if is_profile_attr(&attr) {
                        if let syn::Meta::List(_) = attr.meta {
                            method_options = attr.parse_args()?;
                        }
                    } else {
                        kept.push(attr);
                    }
                }
                method.attrs = kept;
                if method_options.skip {
                    continue;
                }
                let method_class = method_options
                    .class
                    .map_or_else(|| class.clone(), |lit| lit.value());
                method.block = instrument(
                    &method.sig,
                    &method.block,
                    Some(&method_class),
                    method_options.name,
                    signature.as_deref(),
                )?;
            }
            Ok(block.into_token_stream())
        }
        other => Err(syn::Error::new(
            other.span(),
            "#[highrise_agent::profile] goes on a function or an impl block",
        )),
    }
}

fn is_profile_attr(attr: &Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|segment| segment.ident == "profile")
}

/// The body with a scope guard in front of it.
fn instrument(
    sig: &Signature,
    block: &Block,
    class: Option<&str>,
    name: Option<LitStr>,
    signature: Option<&str>,
) -> syn::Result<Block> {
    if let Some(asyncness) = sig.asyncness {
        return Err(syn::Error::new(
            asyncness.span(),
            "#[highrise_agent::profile] does not support async fn: a scope cannot follow a \
             future across threads; use #[tracing::instrument] with highrise_agent::layer()",
        ));
    }
    if let Some(constness) = sig.constness {
        return Err(syn::Error::new(
            constness.span(),
            "#[highrise_agent::profile] cannot instrument a const fn",
        ));
    }
    let method = match name {
        Some(lit) => lit.value(),
        None => {
            let ident = sig.ident.to_string();
            ident.strip_prefix("r#").unwrap_or(&ident).to_string()
        }
    };
    let class = match class {
        Some(class) => quote!(::core::option::Option::Some(#class)),
        None => quote!(::core::option::Option::None),
    };
    let signature = match signature {
        Some(signature) => quote!(::core::option::Option::Some(#signature)),
        None => quote!(::core::option::Option::None),
    };
    let span = sig.ident.span();
    let line = quote_spanned!(span=> ::core::line!());
    let guard = quote_spanned!(Span::mixed_site()=>
        let __highrise_scope = {
            static __HIGHRISE_CALLSITE: ::highrise_agent::__private::Callsite =
                ::highrise_agent::__private::Callsite::new(::highrise_agent::__private::MethodInfo {
                    module_path: ::core::module_path!(),
                    class: #class,
                    method: #method,
                    signature: #signature,
                    file: ::core::option::Option::Some(::core::file!()),
                    line: ::core::option::Option::Some(#line),
                });
            ::highrise_agent::__private::enter(&__HIGHRISE_CALLSITE)
        };
    );
    let body = block;
    syn::parse2(quote!({
        #guard
        #body
    }))
}

/// The class name of an impl's self type: its last path segment without generics.
fn type_name(ty: &Type) -> String {
    match ty {
        Type::Path(path) => path.path.segments.last().map_or_else(
            || compact(&ty.to_token_stream().to_string()),
            |s| s.ident.to_string(),
        ),
        Type::Reference(reference) => type_name(&reference.elem),
        Type::Paren(inner) => type_name(&inner.elem),
        Type::Group(inner) => type_name(&inner.elem),
        other => compact(&other.to_token_stream().to_string()),
    }
}

/// Token text without the spaces `to_string` puts between tokens (`fmt :: Display`).
fn compact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    for (index, &c) in chars.iter().enumerate() {
        if c == ' ' {
            let before = index.checked_sub(1).and_then(|i| chars.get(i)).copied();
            let after = chars.get(index + 1).copied();
            let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            // Keep the space between two words (`dyn Trait`), drop it around punctuation.
            if word(before) && word(after) {
                out.push(' ');
            }
            continue;
        }
        out.push(c);
    }
    out
}

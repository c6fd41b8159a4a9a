//! How people read method names, whatever agent sent them: one spelling shared by the viewer
//! (tooltip, lists, search, compare panel) and the reports.
//!
//! A [`MethodDef`]'s `signature` is free text whose form depends on the agent
//! (`agent-protocol/SPEC.md`, rule 3); the form is recognised by its shape:
//!
//! | agent | `class` | `method` | `signature` | shown as |
//! |---|---|---|---|---|
//! | Java | `Board` | `createOrientation` | `(Ljava/lang/String;Ljava/io/InputStream;)[[Z` | `createOrientation(String, InputStream)` |
//! | Java | `Board` | `<init>` | `(II)V` | `Board(int, int)` |
//! | Java | `Board` | `<clinit>` | `()V` | `static {}` |
//! | Java | `Outer$Inner` | `run` | `()V` | class `Outer.Inner`, `run()` |
//! | Java | `Outer$1` | `run` | `()V` | class `Outer$1` (anonymous and local classes keep their `$`) |
//! | Python | `RegexLexer` | `get_tokens_unprocessed` | `(self, text, stack)` | `get_tokens_unprocessed(self, text, stack)` |
//! | Rust | `Board` | `fmt` | `impl Display` | `fmt [impl Display]` |
//! | any | `Main` | `run` | none | `run` |
//!
//! A signature is a JVM method descriptor only when a strict parser accepts all of it
//! ([`JvmDescriptor::parse`]); then parameter types are shown by their simple names
//! (`java.util.List` → `List`, `Map$Entry` → `Map.Entry`), arrays as `int[]`, and the return
//! type is left out, as JProfiler and async-profiler print `Class.method(Args)`. Any other
//! signature starting with `(` is a parameter list (Python) and is shown as sent; anything
//! else follows the name in brackets. Nothing here panics, whatever the input.

use crate::MethodDef;

/// A parsed JVM method descriptor (JVMS §4.3.3), borrowing class names from the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JvmDescriptor<'a> {
    /// Parameter types, in order.
    pub parameters: Vec<JvmType<'a>>,
    /// The return type; `None` for `V` (void).
    pub returns: Option<JvmType<'a>>,
}

/// One field type of a JVM descriptor: a base type with array dimensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JvmType<'a> {
    /// Array dimensions (`[[I` → 2); at most 255, as the JVM allows.
    pub dimensions: u8,
    pub base: JvmBase<'a>,
}

/// The element type of a [`JvmType`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JvmBase<'a> {
    /// One of `B C D F I J S Z`.
    Primitive(u8),
    /// A class's binary name in internal form, `java/lang/String`, `game/Board$Cell`.
    Object(&'a str),
}

impl<'a> JvmDescriptor<'a> {
    /// Parses a whole method descriptor, `(` parameters `)` return type; `None` unless the
    /// text is exactly one well-formed descriptor.
    pub fn parse(text: &'a str) -> Option<Self> {
        let rest = text.strip_prefix('(')?;
        let mut parameters = Vec::new();
        let mut rest = rest;
        loop {
            if let Some(after) = rest.strip_prefix(')') {
                rest = after;
                break;
            }
            let (field, after) = parse_field_type(rest)?;
            parameters.push(field);
            rest = after;
        }
        let (returns, rest) = match rest.strip_prefix('V') {
            Some(after) => (None, after),
            None => {
                let (field, after) = parse_field_type(rest)?;
                (Some(field), after)
            }
        };
        rest.is_empty().then_some(Self {
            parameters,
            returns,
        })
    }
}

/// One field type at the start of `text`, and what follows it.
fn parse_field_type(text: &str) -> Option<(JvmType<'_>, &str)> {
    let dimensions = text.bytes().take_while(|&b| b == b'[').count();
    let dimensions = u8::try_from(dimensions).ok()?;
    let rest = &text[usize::from(dimensions)..];
    let first = *rest.as_bytes().first()?;
    match first {
        b'B' | b'C' | b'D' | b'F' | b'I' | b'J' | b'S' | b'Z' => Some((
            JvmType {
                dimensions,
                base: JvmBase::Primitive(first),
            },
            &rest[1..],
        )),
        b'L' => {
            let body = &rest[1..];
            let end = body.find(';')?;
            let name = &body[..end];
            let valid = !name.is_empty()
                && name
                    .split('/')
                    .all(|part| !part.is_empty() && !part.contains(['.', '[', '<', '>', ':']));
            valid.then_some((
                JvmType {
                    dimensions,
                    base: JvmBase::Object(name),
                },
                &body[end + 1..],
            ))
        }
        _ => None,
    }
}

impl JvmType<'_> {
    /// How Java source spells the type, classes by simple name: `int[]`, `String`,
    /// `Map.Entry[][]`.
    pub fn display(&self) -> String {
        let mut out = match self.base {
            JvmBase::Primitive(code) => primitive_name(code).to_string(),
            JvmBase::Object(name) => display_class(name.rsplit('/').next().unwrap_or(name)),
        };
        for _ in 0..self.dimensions {
            out.push_str("[]");
        }
        out
    }
}

fn primitive_name(code: u8) -> &'static str {
    match code {
        b'B' => "byte",
        b'C' => "char",
        b'D' => "double",
        b'F' => "float",
        b'I' => "int",
        b'J' => "long",
        b'S' => "short",
        b'Z' => "boolean",
        _ => "?",
    }
}

/// What form a signature has, judged by its shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignatureForm {
    /// A well-formed JVM method descriptor (the Java agent).
    JvmDescriptor,
    /// Any other text starting with `(`: a parameter list as written (the Python agent).
    ParameterList,
    /// Anything else (the Rust agent's `impl Trait`, other agents' free text).
    Other,
}

/// The form of `signature`.
pub fn signature_form(signature: &str) -> SignatureForm {
    if JvmDescriptor::parse(signature).is_some() {
        SignatureForm::JvmDescriptor
    } else if signature.starts_with('(') {
        SignatureForm::ParameterList
    } else {
        SignatureForm::Other
    }
}

/// A class name as people read it: nested classes joined with `.` (`Outer$Inner` →
/// `Outer.Inner`); anonymous and local classes (a `$` part starting with a digit: `Outer$1`,
/// `Outer$1Local`) keep their `$`, as Java tools print them; names with an empty `$` part
/// (`Foo$`, `$Proxy12`, lambdas' `$$`) are kept as they are.
pub fn display_class(class: &str) -> String {
    if !class.contains('$') || class.split('$').any(str::is_empty) {
        return class.to_string();
    }
    let mut parts = class.split('$');
    let mut out = String::with_capacity(class.len());
    out.push_str(parts.next().unwrap_or_default());
    for part in parts {
        let anonymous = part.as_bytes().first().is_some_and(u8::is_ascii_digit);
        out.push(if anonymous { '$' } else { '.' });
        out.push_str(part);
    }
    out
}

/// The innermost name of a class: `Outer$Inner` → `Inner`, `Board` → `Board`,
/// `Outer$1` → `Outer$1` (an anonymous class has no name of its own).
fn simple_class_name(class: &str) -> String {
    let shown = display_class(class);
    match shown.rsplit_once('.') {
        Some((_, inner)) => inner.to_string(),
        None => shown,
    }
}

/// A method as people read it, without package and class: `run()`,
/// `createOrientation(String, InputStream)`, `Board(int, int)` (a constructor),
/// `static {}` (a static initializer), `get_tokens_unprocessed(self, text, stack)`,
/// `fmt [impl Display]`, `run` (no signature).
pub fn method_display(class: &str, method: &str, signature: Option<&str>) -> String {
    let Some(signature) = signature else {
        return method.to_string();
    };
    if let Some(descriptor) = JvmDescriptor::parse(signature) {
        let name = match method {
            "<init>" => simple_class_name(class),
            "<clinit>" => return "static {}".to_string(),
            other => other.to_string(),
        };
        let parameters: Vec<String> = descriptor.parameters.iter().map(JvmType::display).collect();
        return format!("{name}({})", parameters.join(", "));
    }
    if signature.starts_with('(') {
        format!("{method}{signature}")
    } else if signature.is_empty() {
        method.to_string()
    } else {
        format!("{method} [{signature}]")
    }
}

/// The full name as people read it: `package.Class.method(args)` (`Class.method(args)` in the
/// root package), class and method spelled by [`display_class`] and [`method_display`]:
/// `main.game.Board.createOrientation(String, InputStream)`, `game.Outer.Inner.run()`.
pub fn display_name(package: &str, class: &str, method: &str, signature: Option<&str>) -> String {
    let class_shown = display_class(class);
    let method_shown = method_display(class, method, signature);
    if package.is_empty() {
        format!("{class_shown}.{method_shown}")
    } else {
        format!("{package}.{class_shown}.{method_shown}")
    }
}

/// [`method_display`] of a definition: `createOrientation(String, InputStream)`.
pub fn display_method(definition: &MethodDef) -> String {
    method_display(
        &definition.class,
        &definition.method,
        definition.signature.as_deref(),
    )
}

impl MethodDef {
    /// [`display_name`] of this definition: `main.game.Board.rotate(int)`.
    pub fn display_name(&self) -> String {
        display_name(
            &self.package,
            &self.class,
            &self.method,
            self.signature.as_deref(),
        )
    }

    /// [`method_display`] of this definition: `rotate(int)`.
    pub fn display_method(&self) -> String {
        display_method(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn java(class: &str, method: &str, descriptor: &str) -> String {
        method_display(class, method, Some(descriptor))
    }

    #[test]
    fn java_descriptors() {
        assert_eq!(java("Game", "run", "()V"), "run()");
        assert_eq!(
            java(
                "Board",
                "createOrientation",
                "(Ljava/lang/String;Ljava/io/InputStream;)[[Z"
            ),
            "createOrientation(String, InputStream)"
        );
        assert_eq!(
            java("Board", "fill", "([[Z[I)V"),
            "fill(boolean[][], int[])"
        );
        assert_eq!(
            java("Board", "all", "(BCDFIJSZ)V"),
            "all(byte, char, double, float, int, long, short, boolean)"
        );
        assert_eq!(
            java(
                "Cache",
                "put",
                "(Ljava/util/List;Ljava/util/Map$Entry;)Ljava/lang/Object;"
            ),
            "put(List, Map.Entry)"
        );
        assert_eq!(
            java("Main", "main", "([Ljava/lang/String;)V"),
            "main(String[])"
        );
        assert_eq!(java("Root", "of", "(LRoot;)LRoot;"), "of(Root)");
    }

    #[test]
    fn constructors_and_static_initializers() {
        assert_eq!(java("Board", "<init>", "(II)V"), "Board(int, int)");
        assert_eq!(java("Board$Cell", "<init>", "()V"), "Cell()");
        assert_eq!(java("Board$1", "<init>", "(LBoard;)V"), "Board$1(Board)");
        assert_eq!(java("Board", "<clinit>", "()V"), "static {}");
        assert_eq!(
            display_name("main.game", "Board", "<init>", Some("(II)V")),
            "main.game.Board.Board(int, int)"
        );
    }

    #[test]
    fn nested_and_anonymous_classes() {
        assert_eq!(display_class("Board"), "Board");
        assert_eq!(display_class("Outer$Inner"), "Outer.Inner");
        assert_eq!(display_class("Outer$Inner$Deeper"), "Outer.Inner.Deeper");
        assert_eq!(display_class("Outer$1"), "Outer$1");
        assert_eq!(display_class("Outer$Inner$2"), "Outer.Inner$2");
        assert_eq!(display_class("Outer$1Local"), "Outer$1Local");
        assert_eq!(display_class("Foo$"), "Foo$");
        assert_eq!(display_class("$Proxy12"), "$Proxy12");
        assert_eq!(display_class("Game$$Lambda$14"), "Game$$Lambda$14");
        assert_eq!(
            display_name(
                "gui",
                "GameGUI$KeyHandler",
                "keyPressed",
                Some("(Ljava/awt/event/KeyEvent;)V")
            ),
            "gui.GameGUI.KeyHandler.keyPressed(KeyEvent)"
        );
    }

    #[test]
    fn python_signatures() {
        assert_eq!(
            method_display(
                "RegexLexer",
                "get_tokens_unprocessed",
                Some("(self, text, stack)")
            ),
            "get_tokens_unprocessed(self, text, stack)"
        );
        assert_eq!(method_display("util", "now", Some("()")), "now()");
        assert_eq!(
            display_name(
                "pygments.lexer",
                "RegexLexer",
                "get_tokens_unprocessed",
                Some("(self, text, stack)")
            ),
            "pygments.lexer.RegexLexer.get_tokens_unprocessed(self, text, stack)"
        );
        // A parameter list that happens to look like a descriptor's start is still shown raw.
        assert_eq!(method_display("m", "f", Some("(I)")), "f(I)");
        assert_eq!(
            signature_form("(self, *args, **kw)"),
            SignatureForm::ParameterList
        );
    }

    #[test]
    fn rust_and_missing_signatures() {
        assert_eq!(
            method_display("Board", "fmt", Some("impl Display")),
            "fmt [impl Display]"
        );
        assert_eq!(method_display("Board", "rotate", None), "rotate");
        assert_eq!(method_display("Board", "rotate", Some("")), "rotate");
        assert_eq!(display_name("", "Main", "run", None), "Main.run");
        assert_eq!(
            display_name("tetris.game", "Board", "rotate", None),
            "tetris.game.Board.rotate"
        );
        assert_eq!(signature_form("impl Display"), SignatureForm::Other);
    }

    #[test]
    fn malformed_descriptors_fall_back_to_the_text() {
        for raw in [
            "(",
            "()",
            "(V)V",
            "(L;)V",
            "(Ljava/lang/String)V",
            "(I)VV",
            "(I)",
            "(Q)V",
            "(La//b;)V",
            "(La.b;)V",
            "()[V",
            "(I)V trailing",
        ] {
            assert_eq!(
                signature_form(raw),
                if raw.starts_with('(') {
                    SignatureForm::ParameterList
                } else {
                    SignatureForm::Other
                },
                "{raw}"
            );
            assert_eq!(
                method_display("C", "m", Some(raw)),
                format!("m{raw}"),
                "{raw}"
            );
        }
        let too_deep = format!("({}I)V", "[".repeat(256));
        assert!(JvmDescriptor::parse(&too_deep).is_none());
        let deepest = format!("({}I)V", "[".repeat(255));
        assert!(JvmDescriptor::parse(&deepest).is_some());
    }

    #[test]
    fn definitions() {
        let definition = MethodDef {
            id: 3,
            package: "main.game".into(),
            class: "Board".into(),
            method: "rotate".into(),
            signature: Some("(I)V".into()),
            file: None,
            line: None,
        };
        assert_eq!(definition.display_name(), "main.game.Board.rotate(int)");
        assert_eq!(display_method(&definition), "rotate(int)");
        assert_eq!(definition.qualified_name(), "main.game.Board.rotate");
    }
}

//! Property tests of the display names: no text makes them panic, every well-formed JVM
//! descriptor is recognised, and what is not a descriptor is shown as sent.

use highrise_protocol::{
    display_class, display_name, method_display, signature_form, JvmDescriptor, SignatureForm,
};
use proptest::prelude::*;

/// A well-formed field type and how Java spells it.
fn field_type() -> impl Strategy<Value = (String, String)> {
    let primitive = prop_oneof![
        Just(("I".to_string(), "int".to_string())),
        Just(("Z".to_string(), "boolean".to_string())),
        Just(("J".to_string(), "long".to_string())),
        Just(("B".to_string(), "byte".to_string())),
    ];
    let object = ("[a-z]{1,5}(/[a-z]{1,5}){0,3}", "[A-Z][a-zA-Z0-9]{0,6}")
        .prop_map(|(package, class)| (format!("L{package}/{class};"), class));
    (prop_oneof![primitive, object], 0usize..4).prop_map(|((code, shown), dimensions)| {
        (
            format!("{}{code}", "[".repeat(dimensions)),
            format!("{shown}{}", "[]".repeat(dimensions)),
        )
    })
}

proptest! {
    #[test]
    fn any_text_is_shown_without_panicking(
        package in "\\PC{0,12}",
        class in "\\PC{0,12}",
        method in "\\PC{0,12}",
        signature in proptest::option::of("\\PC{0,24}"),
    ) {
        let name = display_name(&package, &class, &method, signature.as_deref());
        prop_assert!(name.contains(&display_class(&class)));
        if let Some(signature) = &signature {
            let _ = signature_form(signature);
        }
    }

    #[test]
    fn descriptor_like_text_never_panics(text in "[(\\[LIZV;/a-z$)]{0,30}") {
        let _ = JvmDescriptor::parse(&text);
        let _ = method_display("C", "m", Some(&text));
    }

    #[test]
    fn well_formed_descriptors_are_shown_as_java(
        parameters in proptest::collection::vec(field_type(), 0..5),
        returns in proptest::option::of(field_type()),
    ) {
        let descriptor = format!(
            "({}){}",
            parameters.iter().map(|(code, _)| code.as_str()).collect::<String>(),
            returns.as_ref().map_or("V", |(code, _)| code.as_str()),
        );
        prop_assert_eq!(signature_form(&descriptor), SignatureForm::JvmDescriptor);
        let shown: Vec<&str> = parameters.iter().map(|(_, shown)| shown.as_str()).collect();
        prop_assert_eq!(
            method_display("C", "m", Some(&descriptor)),
            format!("m({})", shown.join(", "))
        );
    }

    #[test]
    fn parameter_lists_are_shown_as_sent(list in "\\((self|cls|[a-z_]{1,8})(, \\*?[a-z_]{1,8}){0,4}\\)") {
        prop_assert_eq!(signature_form(&list), SignatureForm::ParameterList);
        prop_assert_eq!(method_display("C", "f", Some(&list)), format!("f{list}"));
    }
}

//! OTLP/JSON profiles export requests. opentelemetry-proto's generated JSON reader (0.33) cannot
//! read what protobuf's JSON mapping writes for the profiles messages: it wants every field
//! (most of those structs lack `serde(default)`; the mapping omits zero values) and wants 64-bit
//! integers as numbers (the mapping writes them as strings). These are the fields highrise reads,
//! each optional, integers as numbers or strings, turned into the generated messages.

use opentelemetry_proto::tonic::collector::profiles::v1development::ExportProfilesServiceRequest;
use opentelemetry_proto::tonic::common::v1 as common;
use opentelemetry_proto::tonic::profiles::v1development as profiles;
use opentelemetry_proto::tonic::resource::v1::Resource;
use serde::Deserialize;

/// Reads an OTLP/JSON profiles export request.
pub(crate) fn from_json(body: &[u8]) -> Result<ExportProfilesServiceRequest, serde_json::Error> {
    serde_json::from_slice::<Request>(body).map(Into::into)
}

/// An integer written as a JSON number or a string (protobuf's JSON mapping of 64-bit ones).
#[derive(Debug, Default, Clone, Copy)]
struct Int(i64);

impl<'de> Deserialize<'de> for Int {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Written {
            Number(i64),
            Unsigned(u64),
            Text(String),
        }
        match Written::deserialize(deserializer)? {
            Written::Number(number) => Ok(Int(number)),
            // Unsigned beyond i64 (fixed64 fields): kept as their bits.
            Written::Unsigned(number) => Ok(Int(number as i64)),
            Written::Text(text) => text
                .parse::<i64>()
                .or_else(|_| text.parse::<u64>().map(|n| n as i64))
                .map(Int)
                .map_err(serde::de::Error::custom),
        }
    }
}

fn ints(values: Vec<Int>) -> Vec<i64> {
    values.into_iter().map(|Int(n)| n).collect()
}

fn index(value: Int) -> i32 {
    i32::try_from(value.0).unwrap_or(-1)
}

fn indices(values: Vec<Int>) -> Vec<i32> {
    values.into_iter().map(index).collect()
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Request {
    resource_profiles: Vec<ResourceProfiles>,
    dictionary: Option<Dictionary>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct ResourceProfiles {
    resource: Option<ResourceJson>,
    scope_profiles: Vec<ScopeProfiles>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct ResourceJson {
    attributes: Vec<KeyValue>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct KeyValue {
    key: String,
    key_strindex: Int,
    value: Option<AnyValue>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct AnyValue {
    string_value: Option<String>,
    string_value_strindex: Option<Int>,
    int_value: Option<Int>,
    bool_value: Option<bool>,
    double_value: Option<f64>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct ScopeProfiles {
    profiles: Vec<Profile>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct ValueType {
    type_strindex: Int,
    unit_strindex: Int,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Profile {
    sample_type: Option<ValueType>,
    samples: Vec<Sample>,
    time_unix_nano: Int,
    duration_nano: Int,
    period_type: Option<ValueType>,
    period: Int,
    attribute_indices: Vec<Int>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Sample {
    stack_index: Int,
    attribute_indices: Vec<Int>,
    values: Vec<Int>,
    timestamps_unix_nano: Vec<Int>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Dictionary {
    mapping_table: Vec<Mapping>,
    location_table: Vec<Location>,
    function_table: Vec<Function>,
    string_table: Vec<String>,
    attribute_table: Vec<KeyValueAndUnit>,
    stack_table: Vec<Stack>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Mapping {
    filename_strindex: Int,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Location {
    mapping_index: Int,
    address: Int,
    lines: Vec<Line>,
    attribute_indices: Vec<Int>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Line {
    function_index: Int,
    line: Int,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Function {
    name_strindex: Int,
    system_name_strindex: Int,
    filename_strindex: Int,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct KeyValueAndUnit {
    key_strindex: Int,
    value: Option<AnyValue>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Stack {
    location_indices: Vec<Int>,
}

impl From<AnyValue> for common::AnyValue {
    fn from(value: AnyValue) -> Self {
        use common::any_value::Value;
        let value = if let Some(text) = value.string_value {
            Some(Value::StringValue(text))
        } else if let Some(at) = value.string_value_strindex {
            Some(Value::StringValueStrindex(index(at)))
        } else if let Some(Int(number)) = value.int_value {
            Some(Value::IntValue(number))
        } else if let Some(flag) = value.bool_value {
            Some(Value::BoolValue(flag))
        } else {
            value.double_value.map(Value::DoubleValue)
        };
        common::AnyValue { value }
    }
}

impl From<ValueType> for profiles::ValueType {
    fn from(value: ValueType) -> Self {
        profiles::ValueType {
            type_strindex: index(value.type_strindex),
            unit_strindex: index(value.unit_strindex),
        }
    }
}

impl From<Request> for ExportProfilesServiceRequest {
    fn from(request: Request) -> Self {
        let dictionary = request.dictionary.map(|d| profiles::ProfilesDictionary {
            mapping_table: d
                .mapping_table
                .into_iter()
                .map(|m| profiles::Mapping {
                    filename_strindex: index(m.filename_strindex),
                    ..Default::default()
                })
                .collect(),
            location_table: d
                .location_table
                .into_iter()
                .map(|l| profiles::Location {
                    mapping_index: index(l.mapping_index),
                    address: l.address.0 as u64,
                    lines: l
                        .lines
                        .into_iter()
                        .map(|line| profiles::Line {
                            function_index: index(line.function_index),
                            line: line.line.0,
                            column: 0,
                        })
                        .collect(),
                    attribute_indices: indices(l.attribute_indices),
                })
                .collect(),
            function_table: d
                .function_table
                .into_iter()
                .map(|f| profiles::Function {
                    name_strindex: index(f.name_strindex),
                    system_name_strindex: index(f.system_name_strindex),
                    filename_strindex: index(f.filename_strindex),
                    start_line: 0,
                })
                .collect(),
            string_table: d.string_table,
            attribute_table: d
                .attribute_table
                .into_iter()
                .map(|a| profiles::KeyValueAndUnit {
                    key_strindex: index(a.key_strindex),
                    value: a.value.map(Into::into),
                    unit_strindex: 0,
                })
                .collect(),
            stack_table: d
                .stack_table
                .into_iter()
                .map(|s| profiles::Stack {
                    location_indices: indices(s.location_indices),
                })
                .collect(),
            ..Default::default()
        });
        let resource_profiles = request
            .resource_profiles
            .into_iter()
            .map(|r| profiles::ResourceProfiles {
                resource: r.resource.map(|resource| Resource {
                    attributes: resource
                        .attributes
                        .into_iter()
                        .map(|kv| common::KeyValue {
                            key: kv.key,
                            value: kv.value.map(Into::into),
                            key_strindex: index(kv.key_strindex),
                        })
                        .collect(),
                    ..Default::default()
                }),
                scope_profiles: r
                    .scope_profiles
                    .into_iter()
                    .map(|s| profiles::ScopeProfiles {
                        profiles: s.profiles.into_iter().map(Into::into).collect(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect();
        ExportProfilesServiceRequest {
            resource_profiles,
            dictionary,
        }
    }
}

impl From<Profile> for profiles::Profile {
    fn from(p: Profile) -> Self {
        profiles::Profile {
            sample_type: p.sample_type.map(Into::into),
            samples: p
                .samples
                .into_iter()
                .map(|s| profiles::Sample {
                    stack_index: index(s.stack_index),
                    attribute_indices: indices(s.attribute_indices),
                    values: ints(s.values),
                    timestamps_unix_nano: s
                        .timestamps_unix_nano
                        .into_iter()
                        .map(|Int(n)| n as u64)
                        .collect(),
                    ..Default::default()
                })
                .collect(),
            time_unix_nano: p.time_unix_nano.0 as u64,
            duration_nano: p.duration_nano.0 as u64,
            period_type: p.period_type.map(Into::into),
            period: p.period.0,
            attribute_indices: indices(p.attribute_indices),
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protobufs_json_mapping_reads_with_its_string_integers_and_omitted_zeros() {
        let body = br#"{
          "resourceProfiles": [{
            "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "shop"}}]},
            "scopeProfiles": [{"profiles": [{
              "sampleType": {"typeStrindex": 1, "unitStrindex": 2},
              "samples": [{"stackIndex": 1, "attributeIndices": [1], "timestampsUnixNano": ["1795847093500889119"]},
                          {"values": ["3"]}],
              "timeUnixNano": "1795847093500889119", "period": "10000000"
            }]}]
          }],
          "dictionary": {
            "stringTable": ["", "samples", "count", "thread.id"],
            "attributeTable": [{}, {"keyStrindex": 3, "value": {"intValue": "7"}}],
            "stackTable": [{}, {"locationIndices": [1]}],
            "locationTable": [{}, {"address": "4660", "lines": [{"functionIndex": 1}]}],
            "functionTable": [{}, {"nameStrindex": 1}]
          }
        }"#;
        let request = from_json(body).expect("reads");
        let profile = &request.resource_profiles[0].scope_profiles[0].profiles[0];
        assert_eq!(
            profile.samples[0].timestamps_unix_nano,
            [1_795_847_093_500_889_119]
        );
        assert_eq!(profile.samples[1].stack_index, 0);
        assert_eq!(profile.samples[1].values, [3]);
        assert_eq!(profile.period, 10_000_000);
        let dictionary = request.dictionary.expect("a dictionary");
        assert_eq!(dictionary.location_table[1].address, 0x1234);
        assert_eq!(
            dictionary.attribute_table[1].value,
            Some(common::AnyValue {
                value: Some(common::any_value::Value::IntValue(7))
            })
        );
    }
}

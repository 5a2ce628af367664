//! The Erlang binding's generated files: the status atoms, the NIF table and the `bufkit_nif`
//! module (from the NIF glue's `/* nif .. */` lines), the maps of the record structs, and the
//! extraction options and report.

use std::fmt::Write as _;

use crate::glue::Nif;
use crate::java::plain;
use crate::model::{Binding, CEnum, CStruct, CType, Description, Field};
use crate::text::{GENERATED, c_banner, erlang_banner, wrap};

/// `status_atoms.gen.h`: each status's atom, the header's name in lower case.
pub fn status_atoms(d: &Description) -> String {
    let mut s = c_banner();
    s.push_str("/* Included once, by bufkit_nif.c: each error status's atom, made at load. */\n");
    s.push_str(
        "static struct {\n  bk_status status;\n  const char *name;\n  ERL_NIF_TERM atom;\n} status_atoms[] = {\n",
    );
    for st in d.statuses.iter().filter(|s| s.value != 0) {
        let atom = st.name.strip_prefix("BK_STATUS_").unwrap_or(&st.name).to_lowercase();
        writeln!(s, "    {{{}, \"{atom}\", 0}},", st.name).unwrap();
    }
    s.push_str("};\n");
    s
}

/// `nif_table.gen.h`: every NIF's prototype and the table `ERL_NIF_INIT` takes.
pub fn nif_table(nifs: &[Nif]) -> String {
    let mut s = c_banner();
    s.push_str(
        "/* Included once, by bufkit_nif.c: the NIFs the \"nif NAME(Args)\" comment lines of c_src/ declare. */\n\n",
    );
    for n in nifs {
        writeln!(s, "ERL_NIF_TERM {}_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]);", n.name).unwrap();
    }
    s.push_str("\nstatic ErlNifFunc nif_funcs[] = {\n");
    for n in nifs {
        writeln!(s, "    {{\"{0}\", {1}, {0}_nif, {2}}},", n.name, n.params.len(), n.flags).unwrap();
    }
    s.push_str("};\n");
    s
}

/// `bufkit_nif.erl`: the module the NIF library replaces, its stubs and its loader.
pub fn nif_module(nifs: &[Nif]) -> String {
    let mut s = erlang_banner();
    s.push_str(
        "%% @private\n%% The NIF functions behind bufkit; use the bufkit module instead.\n-module(bufkit_nif).\n\n",
    );
    let exports: Vec<String> = nifs.iter().map(|n| format!("{}/{}", n.name, n.params.len())).collect();
    s.push_str(&wrap("-export([", &format!("{}]).", exports.join(", ")), "         "));
    s.push_str(
        "
-on_load(init/0).

-define(NOT_LOADED, erlang:nif_error({not_loaded, [{module, ?MODULE}, {line, ?LINE}]})).

init() ->
    erlang:load_nif(filename:join(priv_dir(), \"bufkit_nif\"), 0).

priv_dir() ->
    case code:priv_dir(bufkit) of
        {error, bad_name} ->
            % Not installed as an OTP application (e.g. run from the source tree): priv/ is beside ebin/.
            filename:join(filename:dirname(filename:dirname(code:which(?MODULE))), \"priv\");
        Dir ->
            Dir
    end.

",
    );
    for n in nifs {
        let params: Vec<String> = n.params.iter().map(|p| format!("_{p}")).collect();
        writeln!(s, "{}({}) -> ?NOT_LOADED.", n.name, params.join(", ")).unwrap();
    }
    s
}

/// `records.gen.h`: each record struct as a map of its fields.
pub fn nif_records(d: &Description) -> String {
    let mut s = c_banner();
    s.push_str("/* Included by the files that hand out a record struct: each one as a map. */\n");
    for st in d.structs.iter().filter(|s| s.record.is_some()) {
        let n = st.fields.len();
        let name = st.name.trim_start_matches("bk_");
        writeln!(s, "\n/* *r as a map of its fields (bad argument if the map cannot be made). */").unwrap();
        writeln!(s, "static inline ERL_NIF_TERM {name}_to_map(ErlNifEnv *env, const {} *r) {{", st.name).unwrap();
        writeln!(s, "  ERL_NIF_TERM keys[{n}], values[{n}], map;").unwrap();
        for (i, f) in st.fields.iter().enumerate() {
            writeln!(
                s,
                "  keys[{i}] = enif_make_atom(env, \"{0}\"), values[{i}] = enif_make_uint64(env, r->{0});",
                f.name
            )
            .unwrap();
        }
        writeln!(s, "  if (!enif_make_map_from_arrays(env, keys, values, {n}, &map)) return enif_make_badarg(env);")
            .unwrap();
        s.push_str("  return map;\n}\n");
    }
    s
}

/// `enum_atoms.gen.h`: for each C enum the options take, its value from an Erlang atom (its
/// variants' names past their common prefix, in lower case).
pub fn enum_atoms(enums: &[&CEnum]) -> String {
    let mut s = c_banner();
    s.push_str("/* Included after nif.h. */\n");
    for e in enums {
        let atoms = e.atoms().expect("checked when the description was read");
        writeln!(s, "\n/* A {} from its atom ({}): 1, or 0 for another term. */", e.name, atoms.join(", ")).unwrap();
        writeln!(s, "static inline int {}_from_atom(ErlNifEnv *env, ERL_NIF_TERM term, uint32_t *code) {{", e.name)
            .unwrap();
        for (code, atom) in atoms.iter().enumerate() {
            writeln!(s, "  if (enif_is_identical(term, enif_make_atom(env, \"{atom}\"))) return *code = {code}, 1;")
                .unwrap();
        }
        s.push_str("  return 0;\n}\n");
    }
    s
}

/// The NIF's marshalling of the options and the report: `extract_structs.gen.h`.
pub fn nif_extract_structs(options: &CStruct, report: &CStruct) -> String {
    let mut s = c_banner();
    s.push_str("/* Included once, by extract.c, after nif.h. */\n\n");
    s.push_str("/* The plain options of extract/3's map in *o (zeroed first, its size set); the pointers\n");
    s.push_str(" * (patterns, callback, cancellation flag) are the caller's to fill. 0, or -1 for a value of\n");
    s.push_str(" * the wrong type or range (badarg). */\n");
    s.push_str("static int extract_options_from_map(ErlNifEnv *env, ERL_NIF_TERM map, bk_extract_options *o) {\n");
    s.push_str("  ERL_NIF_TERM value;\n  memset(o, 0, sizeof *o);\n  o->size = sizeof *o;\n");
    for f in plain(&options.fields) {
        let c = &f.name;
        writeln!(s, "  if (enif_get_map_value(env, map, enif_make_atom(env, \"{c}\"), &value)) {{").unwrap();
        match (&f.binding, &f.ty) {
            (Some(Binding::Flag), _) => {
                writeln!(s, "    if (enif_is_identical(value, enif_make_atom(env, \"true\"))) o->{c} = 1;").unwrap();
                writeln!(s, "    else if (!enif_is_identical(value, enif_make_atom(env, \"false\"))) return -1;")
                    .unwrap();
            }
            (Some(Binding::Plain), CType::U32) => {
                writeln!(s, "    unsigned v;\n    if (!enif_get_uint(env, value, &v)) return -1;\n    o->{c} = v;")
                    .unwrap()
            }
            (Some(Binding::Plain), _) => writeln!(
                s,
                "    ErlNifUInt64 v;\n    if (!enif_get_uint64(env, value, &v)) return -1;\n    o->{c} = v;"
            )
            .unwrap(),
            (Some(Binding::Float), _) => {
                writeln!(s, "    ErlNifSInt64 whole;").unwrap();
                writeln!(s, "    if (enif_get_int64(env, value, &whole)) o->{c} = (double)whole;").unwrap();
                writeln!(s, "    else if (!enif_get_double(env, value, &o->{c})) return -1;").unwrap();
            }
            (Some(Binding::Enum { c: c_enum, .. }), _) => {
                writeln!(s, "    uint32_t code;\n    if (!{c_enum}_from_atom(env, value, &code)) return -1;").unwrap();
                writeln!(s, "    o->{c} = code;").unwrap();
            }
            _ => unreachable!("plain fields only"),
        }
        s.push_str("  }\n");
    }
    s.push_str("  return 0;\n}\n\n");
    let fields = plain(&report.fields);
    s.push_str("/* extract/3's report: *r as a map of its fields. */\n");
    s.push_str("static ERL_NIF_TERM extract_report_to_map(ErlNifEnv *env, const bk_extract_report *r) {\n");
    writeln!(s, "  ERL_NIF_TERM keys[{0}], values[{0}], map;", fields.len()).unwrap();
    for (i, f) in fields.iter().enumerate() {
        writeln!(s, "  keys[{i}] = enif_make_atom(env, \"{0}\"), values[{i}] = enif_make_uint64(env, r->{0});", f.name)
            .unwrap();
    }
    writeln!(
        s,
        "  if (!enif_make_map_from_arrays(env, keys, values, {}, &map)) return enif_make_badarg(env);",
        fields.len()
    )
    .unwrap();
    s.push_str("  return map;\n}\n");
    s
}

fn erlang_type(f: &Field) -> String {
    match &f.binding {
        Some(Binding::Flag) => "boolean()".into(),
        Some(Binding::Plain) => "non_neg_integer()".into(),
        Some(Binding::Float) => "number()".into(),
        Some(Binding::Enum { atoms, .. }) => atoms.join(" | "),
        Some(Binding::Hand { erlang_type, .. }) => erlang_type.clone(),
        _ => unreachable!("the size is no key"),
    }
}

/// The Erlang keys of the options: plain fields and the hand fields Erlang has.
fn erlang_keys(fields: &[Field]) -> Vec<(&Field, String)> {
    fields
        .iter()
        .filter_map(|f| match &f.binding {
            Some(Binding::Size) => None,
            Some(Binding::Hand { erlang, .. }) => (!erlang.is_empty()).then(|| (f, erlang.clone())),
            _ => Some((f, f.name.clone())),
        })
        .collect()
}

/// `bufkit_extract.hrl`: the types of extract/3's options and report.
pub fn extract_header(options: &CStruct, report: &CStruct) -> String {
    let mut s: String = GENERATED.lines().map(|l| format!("%% {l}\n")).collect();
    s.push_str("%% Included by bufkit.erl.\n\n");
    s.push_str("%% The options of extract/3: the fields of bk_extract_options (include/bufkit.h).\n");
    let keys = erlang_keys(&options.fields);
    for (f, key) in &keys {
        s.push_str(&wrap(&format!("%% `{key}':"), &f.doc.replace('\n', " ").replace('`', "'"), "%%   "));
    }
    s.push_str("-type extract_options() :: #{\n");
    for (i, (f, key)) in keys.iter().enumerate() {
        let end = if i + 1 == keys.len() { "\n}.\n" } else { ",\n" };
        write!(s, "    {key} => {}{end}", erlang_type(f)).unwrap();
    }
    let names: Vec<&str> = keys.iter().map(|(_, k)| k.as_str()).collect();
    s.push_str("\n%% Every key extract_options() has.\n");
    s.push_str(&wrap("-define(EXTRACT_OPTION_KEYS,", &format!("[{}]).", names.join(", ")), "        "));
    s.push_str("\n%% What extract/3 did: the fields of bk_extract_report (include/bufkit.h).\n");
    let fields = plain(&report.fields);
    for f in &fields {
        s.push_str(&wrap(&format!("%% `{}':", f.name), &f.doc.replace('\n', " ").replace('`', "'"), "%%   "));
    }
    s.push_str("-type extract_report() :: #{\n");
    for (i, f) in fields.iter().enumerate() {
        let end = if i + 1 == fields.len() { "\n}.\n" } else { ",\n" };
        write!(s, "    {} := non_neg_integer(){end}", f.name).unwrap();
    }
    s
}

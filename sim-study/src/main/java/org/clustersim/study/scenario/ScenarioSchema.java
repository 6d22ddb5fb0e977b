package org.clustersim.study.scenario;

import java.util.List;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The scenario format as a JSON Schema (draft 2020-12), written from {@link ScenarioFields}, the
 * definitions the reader checks fields with. Editors (the YAML language server, VS Code) use it
 * to complete and check scenario files as they are typed.
 *
 * <p>The schema accepts a file exactly when the reader's field-level checks do: each field's
 * type, range and accepted names (in any case, as the reader matches them), unknown fields, and
 * the required ones. An empty value ({@code key:} or {@code null}) counts as absent, as in the
 * reader. Rules between fields (divisibility, one field needing another, the cluster's GPU count
 * against the layout) stay the reader's.
 */
public final class ScenarioSchema {
    /** The draft the schema follows. */
    public static final String DIALECT = "https://json-schema.org/draft/2020-12/schema";
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private ScenarioSchema() {
    }

    /** The schema as a tree. */
    public static ObjectNode schema() {
        ObjectNode root = NODES.objectNode();
        root.put("$schema", DIALECT);
        root.put("$id", "https://clustersim.org/scenario.schema.json");
        root.put("title", "clustersim scenario");
        ObjectNode body = mapping((Field.MappingType) ScenarioFields.ROOT.type(), false);
        root.put("description", ScenarioFields.ROOT.description());
        root.setAll(body);
        return root;
    }

    /** The schema as indented JSON with a final newline (byte-identical from run to run). */
    public static String text() {
        return indented(schema());
    }

    /** A schema tree as indented JSON with a final newline, as the committed schema files are written. */
    static String indented(ObjectNode schema) {
        try {
            return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(schema) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static ObjectNode field(Field f) {
        ObjectNode n = type(f.type());
        ObjectNode out = NODES.objectNode();
        out.put("description", f.description());
        out.setAll(n);
        if (f.dflt() instanceof Integer i) {
            out.put("default", i);
        } else if (f.dflt() instanceof Double d) {
            out.put("default", d);
        } else if (f.dflt() instanceof Boolean b) {
            out.put("default", b);
        } else if (f.dflt() instanceof String s) {
            out.put("default", s);
        }
        return out;
    }

    private static ObjectNode type(Field.Type type) {
        ObjectNode n = NODES.objectNode();
        if (type instanceof Field.IntegerType t) {
            types(n, "integer");
            n.put("minimum", t.min());
            n.put("maximum", t.max());
        } else if (type instanceof Field.NumberType t) {
            types(n, "number");
            number(n, "minimum", t.min());
            number(n, "maximum", t.max());
        } else if (type instanceof Field.BooleanType) {
            types(n, "boolean");
        } else if (type instanceof Field.TextType t) {
            types(n, "string");
            // the reader takes no blank text; a pattern of its own says what it parses
            n.put("pattern", t.pattern() == null ? "\\S" : t.pattern());
        } else if (type instanceof Field.ChoiceType t) {
            n.set("anyOf", names(List.copyOf(t.values().keySet()), true));
        } else if (type instanceof Field.DegreeType t) {
            types(n, "integer");
            n.put("minimum", -1);
            n.put("maximum", t.max());
            // 0 is no degree; -1 takes what the other axes leave
            n.putObject("not").put("const", 0);
        } else if (type instanceof Field.TextListType t) {
            types(n, "array");
            n.putObject("items").put("type", "string").put("pattern", t.pattern());
        } else if (type instanceof Field.IntegerListType t) {
            types(n, "array");
            ObjectNode item = n.putObject("items");
            item.put("type", "integer");
            item.put("minimum", t.min());
            item.put("maximum", t.max());
        } else if (type instanceof Field.NameListType t) {
            types(n, "array");
            n.putObject("items").set("anyOf", names(t.names(), false));
            n.put("minItems", 1);
            n.put("uniqueItems", true);
        } else if (type instanceof Field.MappingType t) {
            n.setAll(mapping(t, true));
        } else if (type instanceof Field.VariantListType t) {
            types(n, "array");
            ArrayNode oneOf = n.putObject("items").put("type", "object").putArray("oneOf");
            for (Field.MappingType variant : t.variants().values()) {
                ObjectNode v = mapping(variant, false);
                oneOf.add(v);
            }
        } else if (type instanceof Field.OpenMappingType) {
            types(n, "object");
        }
        return n;
    }

    /** An object of exactly {@code t}'s fields, with its required alternatives (given and not empty). */
    static ObjectNode mapping(Field.MappingType t, boolean nullable) {
        ObjectNode n = NODES.objectNode();
        if (nullable) {
            types(n, "object");
        } else {
            n.put("type", "object");
        }
        ObjectNode props = n.putObject("properties");
        for (Field f : t.fields()) {
            props.set(f.name(), field(f));
        }
        n.put("additionalProperties", false);
        if (!t.required().isEmpty()) {
            ArrayNode anyOf = n.putArray("anyOf");
            for (List<String> alternative : t.required()) {
                ObjectNode a = anyOf.addObject();
                ArrayNode req = a.putArray("required");
                ObjectNode notNull = a.putObject("properties");
                for (String key : alternative) {
                    req.add(key);
                    notNull.putObject(key).putObject("not").put("type", "null");
                }
            }
        }
        return n;
    }

    /**
     * Accepted names: an enum (for completion) or the same names in any case (the reader ignores
     * case); {@code nullable}: an empty value stands for the default.
     */
    static ArrayNode names(List<String> names, boolean nullable) {
        ArrayNode anyOf = NODES.arrayNode();
        ArrayNode e = anyOf.addObject().putArray("enum");
        names.forEach(e::add);
        if (nullable) {
            e.addNull();
        }
        StringBuilder p = new StringBuilder("^(");
        for (int i = 0; i < names.size(); i++) {
            p.append(i == 0 ? "" : "|").append(ScenarioFields.anyCase(names.get(i)));
        }
        anyOf.addObject().put("type", "string").put("pattern", p.append(")$").toString());
        return anyOf;
    }

    private static void types(ObjectNode n, String type) {
        n.putArray("type").add(type).add("null");
    }

    private static void number(ObjectNode n, String key, double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            n.put(key, (long) v);
        } else {
            n.put(key, v);
        }
    }

}

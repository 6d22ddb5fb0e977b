package org.clustersim.study.scenario;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.clustersim.core.input.Section;
import org.clustersim.core.input.SourceNode;

/**
 * One field of the scenario format: its name, type (with range or accepted names), default and
 * description. The reader checks every field through these definitions and {@link ScenarioSchema}
 * turns the same definitions into a JSON Schema, so the two cannot drift apart. Checks that
 * relate several fields (divisibility, one field needing another) stay in the reader.
 *
 * @param name        the key as written in a file
 * @param type        what values are accepted
 * @param dflt        the default when absent (a name for choices), or null where it depends on
 *                    other fields (the description then says what it is)
 * @param description one or two sentences, as in docs/scenario-format.md
 */
public record Field(String name, Type type, Object dflt, String description) {

    /** What a field accepts. */
    public sealed interface Type {
    }

    /** An integer in [min, max]. */
    public record IntegerType(int min, int max) implements Type {
    }

    /** A number (integer or decimal) in [min, max]. */
    public record NumberType(double min, double max) implements Type {
    }

    /** true or false. */
    public record BooleanType() implements Type {
    }

    /**
     * A non-empty text; {@code pattern} (an ECMA-262 regular expression, or null) is what the
     * reader's own parsing of the text accepts, such as a duration.
     */
    public record TextType(String pattern) implements Type {
    }

    /**
     * One of a set of names, matched ignoring case. {@code planned} names belong to the format but
     * are rejected as not supported yet; {@code elsewhere} names are rejected with a pointer to the
     * field that does take them (a torus fabric: the TPU presets).
     */
    public record ChoiceType(Map<String, ?> values, List<String> planned, Map<String, String> elsewhere)
            implements Type {
        /** Names in sorted order, so messages and the schema come out the same every run. */
        public ChoiceType {
            values = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(values));
            elsewhere = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(elsewhere));
        }

        public ChoiceType(Map<String, ?> values, List<String> planned) {
            this(values, planned, Map.of());
        }
    }

    /**
     * A parallel degree from 1 to {@code max}, or -1 for what the other axes leave (MaxText's
     * {@code *_parallelism} convention).
     */
    public record DegreeType(int max) implements Type {
    }

    /**
     * A list of texts, each matching {@code pattern} (an anchored ECMA-262 regular expression that
     * Java reads the same way); {@code expected} says what they are, for messages.
     */
    public record TextListType(String pattern, String expected) implements Type {
    }

    /** A list of integers, each in [min, max]. */
    public record IntegerListType(int min, int max) implements Type {
    }

    /** A non-empty list of distinct names from {@code names} (matched ignoring case). */
    public record NameListType(List<String> names) implements Type {
    }

    /**
     * A mapping of the given fields and no others.
     *
     * @param fields   its fields in documentation order
     * @param required alternatives: the mapping must give every field of at least one of them
     *                 (empty: nothing is required)
     */
    public record MappingType(List<Field> fields, List<List<String>> required) implements Type {
        /** The field named {@code name}. */
        public Field field(String name) {
            return fields.stream().filter(f -> f.name().equals(name)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no field " + name));
        }
    }

    /**
     * A list of mappings, each with exactly one of {@code variants}' keys: an item with key
     * {@code k} takes {@code variants.get(k)}'s fields.
     */
    public record VariantListType(Map<String, MappingType> variants) implements Type {
    }

    /** A mapping checked elsewhere (device-profile overrides, checked by the profile reader). */
    public record OpenMappingType() implements Type {
    }

    static Field integer(String name, Integer dflt, int min, int max, String description) {
        return new Field(name, new IntegerType(min, max), dflt, description);
    }

    static Field number(String name, Double dflt, double min, double max, String description) {
        return new Field(name, new NumberType(min, max), dflt, description);
    }

    static Field bool(String name, Boolean dflt, String description) {
        return new Field(name, new BooleanType(), dflt, description);
    }

    static Field text(String name, String description) {
        return new Field(name, new TextType(null), null, description);
    }

    static Field text(String name, String dflt, String pattern, String description) {
        return new Field(name, new TextType(pattern), dflt, description);
    }

    static Field choice(String name, Map<String, ?> values, String dflt, String description) {
        return new Field(name, new ChoiceType(values, List.of()), dflt, description);
    }

    static Field choice(String name, Map<String, ?> values, List<String> planned, String dflt, String description) {
        return new Field(name, new ChoiceType(values, planned), dflt, description);
    }

    /** A choice whose {@code elsewhere} names are answered with where they belong. */
    static Field choice(String name, Map<String, ?> values, Map<String, String> elsewhere, String dflt,
                        String description) {
        return new Field(name, new ChoiceType(values, List.of(), elsewhere), dflt, description);
    }

    /** Names mapped to themselves, in order. */
    static Map<String, String> names(String... names) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String n : names) {
            m.put(n, n);
        }
        return m;
    }

    static Field section(String name, String description, List<List<String>> required, Field... fields) {
        return new Field(name, new MappingType(List.of(fields), required), null, description);
    }

    /** This field's mapping type (for a section). */
    public MappingType mapping() {
        return (MappingType) type;
    }

    // ---- reading through the definition ----

    private <T extends Type> T as(Class<T> kind) {
        if (!kind.isInstance(type)) {
            throw new IllegalStateException(name + " is declared " + type + ", read as " + kind.getSimpleName());
        }
        return kind.cast(type);
    }

    /** The integer, or its declared default when absent. */
    public int integer(Section s) {
        return integer(s, (Integer) dflt);
    }

    /** The integer, or {@code fallback} (a default depending on other fields) when absent. */
    public int integer(Section s, int fallback) {
        return optionalInteger(s).orElse(fallback);
    }

    public Optional<Integer> optionalInteger(Section s) {
        IntegerType t = as(IntegerType.class);
        return s.optionalInteger(name, t.min(), t.max());
    }

    /** The integer, which must be given (a null value counts as not given). */
    public Optional<Integer> requiredInteger(Section s) {
        IntegerType t = as(IntegerType.class);
        if (s.node(name).isEmpty()) {
            s.error(name, "missing required value: expected an integer from " + t.min() + " to " + t.max());
            return Optional.empty();
        }
        return s.optionalInteger(name, t.min(), t.max());
    }

    public Optional<Double> number(Section s) {
        NumberType t = as(NumberType.class);
        return s.optionalNumber(name, t.min(), t.max());
    }

    public boolean bool(Section s) {
        return bool(s, (Boolean) dflt);
    }

    public boolean bool(Section s, boolean fallback) {
        as(BooleanType.class);
        return s.bool(name, fallback);
    }

    public Optional<String> text(Section s) {
        as(TextType.class);
        return s.text(name);
    }

    /**
     * The text, checked against the declared pattern (the reader's own parsing then cannot fail on
     * its form); empty when absent or after reporting a text of another form.
     *
     * @param expected what the pattern stands for, for the message
     */
    public Optional<String> text(Section s, String expected) {
        TextType t = as(TextType.class);
        Optional<String> v = s.text(name);
        if (v.isPresent() && t.pattern() != null && !java.util.regex.Pattern.compile(t.pattern()).matcher(v.get())
                .find()) {
            s.error(name, "found '" + v.get() + "', expected " + expected);
            return Optional.empty();
        }
        return v;
    }

    /** The degree (1 and up, or -1 for the rest); empty when absent or after reporting it. */
    public Optional<Integer> degree(Section s) {
        DegreeType t = as(DegreeType.class);
        Optional<Integer> v = s.optionalInteger(name, -1, t.max());
        if (v.isPresent() && v.get() == 0) {
            s.error(name, "found 0, expected an integer from 1 to " + t.max() + ", or -1 for what the other axes "
                    + "leave");
            return Optional.empty();
        }
        return v;
    }

    /**
     * The texts of a list field, each matching the declared pattern; empty when absent, or after
     * reporting a value that is not a list or an item of another form.
     */
    public Optional<List<String>> textList(Section s) {
        TextListType t = as(TextListType.class);
        if (s.node(name).isEmpty()) {
            return Optional.empty();
        }
        List<SourceNode> items = s.list(name);
        if (!(s.node(name).get() instanceof SourceNode.ListNode)) {
            return Optional.empty();
        }
        java.util.regex.Pattern p = java.util.regex.Pattern.compile(t.pattern());
        List<String> out = new ArrayList<>();
        boolean ok = true;
        for (int i = 0; i < items.size(); i++) {
            SourceNode item = items.get(i);
            if (item instanceof SourceNode.ScalarNode sc && sc.kind() != SourceNode.ScalarKind.NULL
                    && p.matcher(sc.text()).find()) {
                out.add(sc.text());
            } else {
                s.diagnostics().error(item.location(), s.pathOf(name) + "[" + i + "]", "found " + item.describe()
                        + ", expected " + t.expected());
                ok = false;
            }
        }
        return ok ? Optional.of(out) : Optional.empty();
    }

    /**
     * Reads the field through its type only, recording type, range and name errors, where the
     * value is not used (a field of another kind of cluster, reported by the caller). A text's
     * pattern is the caller's to check, with its own words ({@link #text(Section, String)}).
     * Whether it is given.
     */
    public boolean check(Section s) {
        if (type instanceof IntegerType) {
            optionalInteger(s);
        } else if (type instanceof NumberType) {
            number(s);
        } else if (type instanceof BooleanType) {
            bool(s, false);
        } else if (type instanceof TextType) {
            text(s);
        } else if (type instanceof ChoiceType) {
            choice(s, null);
        } else if (type instanceof DegreeType) {
            degree(s);
        } else if (type instanceof TextListType) {
            textList(s);
        } else if (type instanceof IntegerListType) {
            integerList(s);
        } else {
            s.node(name);
        }
        return s.node(name).isPresent();
    }

    public Optional<int[]> integerList(Section s) {
        IntegerListType t = as(IntegerListType.class);
        return s.integerList(name, t.min(), t.max());
    }

    /** The chosen value, or the declared default's value when absent. */
    @SuppressWarnings("unchecked")
    public <E> E choice(Section s) {
        return choice(s, dflt == null ? null : (E) as(ChoiceType.class).values().get(dflt));
    }

    /**
     * The chosen value, or {@code fallback} when absent; a planned name is reported as not
     * supported yet and gives {@code fallback}.
     */
    @SuppressWarnings("unchecked")
    public <E> E choice(Section s, E fallback) {
        ChoiceType t = as(ChoiceType.class);
        Optional<SourceNode> given = s.node(name);
        if (given.isPresent() && given.get() instanceof SourceNode.ScalarNode sc
                && sc.kind() == SourceNode.ScalarKind.STRING
                && t.planned().contains(sc.text().toLowerCase(java.util.Locale.ROOT))) {
            s.notSupported(name, sc.text() + " is planned; use " + String.join(", ", t.values().keySet()));
            return fallback;
        }
        if (given.isPresent() && given.get() instanceof SourceNode.ScalarNode sc
                && sc.kind() == SourceNode.ScalarKind.STRING
                && t.elsewhere().containsKey(sc.text().toLowerCase(java.util.Locale.ROOT))) {
            s.error(name, "found '" + sc.text() + "', expected one of " + String.join(", ", t.values().keySet())
                    + ": " + t.elsewhere().get(sc.text().toLowerCase(java.util.Locale.ROOT)));
            return fallback;
        }
        return s.choice(name, fallback, (Map<String, E>) t.values());
    }

    /** A nested section read through this definition's fields. */
    public Section section(Section parent) {
        as(MappingType.class);
        return parent.section(name);
    }

    /** The items of a list field (empty when absent). */
    public List<SourceNode> list(Section s) {
        if (!(type instanceof VariantListType) && !(type instanceof NameListType)) {
            throw new IllegalStateException(name + " is not a list");
        }
        return s.list(name);
    }

    /** The names a choice field accepts. */
    public List<String> names() {
        if (type instanceof ChoiceType c) {
            return new ArrayList<>(c.values().keySet());
        }
        return as(NameListType.class).names();
    }
}

package org.clustersim.core.input;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * One mapping of an input file (a scenario, a device profile) being read into typed values. Every accessor records its key
 * as known; {@link #finish()} then reports the keys nobody asked for, with the nearest known
 * key as a suggestion. Type and range errors are recorded and the default is returned, so one
 * pass finds all the errors of a file.
 */
public final class Section {
    private final Diagnostics diagnostics;
    private final String path;
    private final SourceNode.MapNode node;
    private final SourceLocation location;
    private final Set<String> known = new LinkedHashSet<>();

    /**
     * @param node the mapping, or null when the section is absent (every field takes its default)
     */
    public Section(Diagnostics diagnostics, String path, SourceNode.MapNode node, SourceLocation location) {
        this.diagnostics = diagnostics;
        this.path = path;
        this.node = node;
        this.location = location;
    }

    /** Reads a whole file's root, which must be a mapping. */
    public static Section root(Diagnostics diagnostics, SourceNode root) {
        if (root instanceof SourceNode.MapNode m) {
            return new Section(diagnostics, "", m, m.location());
        }
        diagnostics.error(root.location(), "", "found " + root.describe() + ", expected a mapping of sections");
        return new Section(diagnostics, "", null, root.location());
    }

    /** Where this section's errors are recorded. */
    public Diagnostics diagnostics() {
        return diagnostics;
    }

    /** A value of any shape, as written; absent or null gives empty. */
    public Optional<SourceNode> node(String key) {
        known.add(key);
        SourceNode.Entry e = entry(key);
        return e == null || isNull(e.value()) ? Optional.empty() : Optional.of(e.value());
    }

    public String path() {
        return path;
    }

    /** The dotted path of a key in this section. */
    public String pathOf(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    public boolean has(String key) {
        known.add(key);
        return entry(key) != null;
    }

    /** Where a key's value is written, or where this section starts if the key is absent. */
    public SourceLocation locationOf(String key) {
        SourceNode.Entry e = entry(key);
        return e == null ? location : e.value().location();
    }

    public void error(String key, String message) {
        diagnostics.error(locationOf(key), pathOf(key), message);
    }

    /** A nested mapping; absent means every field of it takes its default. */
    public Section section(String key) {
        known.add(key);
        SourceNode.Entry e = entry(key);
        if (e == null || isNull(e.value())) {
            return new Section(diagnostics, pathOf(key), null, e == null ? location : e.value().location());
        }
        if (e.value() instanceof SourceNode.MapNode m) {
            // Errors about the section as a whole (a missing field, say) point at its key.
            return new Section(diagnostics, pathOf(key), m, e.keyLocation());
        }
        error(key, "found " + e.value().describe() + ", expected a mapping");
        return new Section(diagnostics, pathOf(key), null, e.value().location());
    }

    /** A list value; absent or null gives an empty list. */
    public List<SourceNode> list(String key) {
        known.add(key);
        SourceNode.Entry e = entry(key);
        if (e == null || isNull(e.value())) {
            return List.of();
        }
        if (e.value() instanceof SourceNode.ListNode l) {
            return l.items();
        }
        error(key, "found " + e.value().describe() + ", expected a list");
        return List.of();
    }

    /** A list of integers in [min, max]; absent gives empty (so does a bad item, after recording an error). */
    public Optional<int[]> integerList(String key, int min, int max) {
        known.add(key);
        SourceNode.Entry e = entry(key);
        if (e == null || isNull(e.value())) {
            return Optional.empty();
        }
        if (!(e.value() instanceof SourceNode.ListNode l)) {
            error(key, "found " + e.value().describe() + ", expected a list of integers");
            return Optional.empty();
        }
        int[] out = new int[l.items().size()];
        for (int i = 0; i < out.length; i++) {
            SourceNode item = l.items().get(i);
            long value = Long.MIN_VALUE;
            if (item instanceof SourceNode.ScalarNode sc && sc.kind() == SourceNode.ScalarKind.INTEGER) {
                try {
                    value = Long.parseLong(sc.text());
                } catch (NumberFormatException ex) {
                    value = Long.MAX_VALUE;
                }
            }
            if (value < min || value > max) {
                diagnostics.error(item.location(), pathOf(key) + "[" + i + "]", "found " + item.describe()
                        + ", expected an integer from " + min + " to " + max);
                return Optional.empty();
            }
            out[i] = (int) value;
        }
        return Optional.of(out);
    }

    /** An integer in [min, max]; absent gives {@code dflt}. */
    public int integer(String key, int dflt, int min, int max) {
        Optional<Integer> v = optionalInteger(key, min, max);
        return v.orElse(dflt);
    }

    /** An integer in [min, max] that must be present; returns empty (after recording an error) if not usable. */
    public Optional<Integer> requiredInteger(String key, int min, int max) {
        if (!has(key)) {
            diagnostics.error(location, pathOf(key), "missing required value: expected an integer from " + min
                    + " to " + max);
            return Optional.empty();
        }
        return optionalInteger(key, min, max);
    }

    public Optional<Integer> optionalInteger(String key, int min, int max) {
        known.add(key);
        SourceNode.Entry e = entry(key);
        if (e == null || isNull(e.value())) {
            return Optional.empty();
        }
        SourceNode v = e.value();
        if (v instanceof SourceNode.ScalarNode s && s.kind() == SourceNode.ScalarKind.INTEGER) {
            long value;
            try {
                value = Long.parseLong(s.text());
            } catch (NumberFormatException ex) {
                value = Long.MAX_VALUE;
            }
            if (value < min || value > max) {
                error(key, "found " + s.text() + ", expected an integer from " + min + " to " + max);
                return Optional.empty();
            }
            return Optional.of((int) value);
        }
        error(key, "found " + v.describe() + ", expected an integer");
        return Optional.empty();
    }

    /** A number (integer or decimal) in [min, max]; absent gives empty. */
    public Optional<Double> optionalNumber(String key, double min, double max) {
        known.add(key);
        SourceNode.Entry e = entry(key);
        if (e == null || isNull(e.value())) {
            return Optional.empty();
        }
        SourceNode v = e.value();
        if (v instanceof SourceNode.ScalarNode s
                && (s.kind() == SourceNode.ScalarKind.INTEGER || s.kind() == SourceNode.ScalarKind.DECIMAL)) {
            double value = Double.parseDouble(s.text());
            if (!(value >= min && value <= max)) {
                error(key, "found " + s.text() + ", expected a number from " + fmt(min) + " to " + fmt(max));
                return Optional.empty();
            }
            return Optional.of(value);
        }
        error(key, "found " + v.describe() + ", expected a number");
        return Optional.empty();
    }

    /** A boolean; absent gives {@code dflt}. */
    public boolean bool(String key, boolean dflt) {
        known.add(key);
        SourceNode.Entry e = entry(key);
        if (e == null || isNull(e.value())) {
            return dflt;
        }
        if (e.value() instanceof SourceNode.ScalarNode s && s.kind() == SourceNode.ScalarKind.BOOLEAN) {
            return Boolean.parseBoolean(s.text());
        }
        error(key, "found " + e.value().describe() + ", expected true or false");
        return dflt;
    }

    /** A non-empty string; absent gives empty. */
    public Optional<String> text(String key) {
        known.add(key);
        SourceNode.Entry e = entry(key);
        if (e == null || isNull(e.value())) {
            return Optional.empty();
        }
        if (e.value() instanceof SourceNode.ScalarNode s && s.kind() == SourceNode.ScalarKind.STRING
                && !s.text().isBlank()) {
            return Optional.of(s.text());
        }
        error(key, "found " + e.value().describe() + ", expected a non-empty text");
        return Optional.empty();
    }

    /**
     * One of a fixed set of names (case-insensitive); absent gives {@code dflt}. An unknown name is
     * reported with the list of accepted names and the nearest one.
     */
    public <E> E choice(String key, E dflt, Map<String, E> choices) {
        Optional<String> t = text(key);
        if (t.isEmpty()) {
            return dflt;
        }
        E value = choices.get(t.get().toLowerCase(Locale.ROOT));
        if (value == null) {
            String suggestion = Suggestions.nearest(t.get(), choices.keySet())
                    .map(s -> " (did you mean '" + s + "'?)").orElse("");
            error(key, "found '" + t.get() + "', expected one of " + String.join(", ", new TreeMap<>(choices)
                    .keySet()) + suggestion);
            return dflt;
        }
        return value;
    }

    /** Records that {@code key} is part of the format but its present value is not simulated yet. */
    public void notSupported(String key, String detail) {
        error(key, "not supported yet: " + pathOf(key) + " (" + detail + ")");
    }

    /** Reports every key of this section that no accessor asked for. */
    public void finish() {
        if (node == null) {
            return;
        }
        for (SourceNode.Entry e : node.entries().values()) {
            if (!known.contains(e.key())) {
                String suggestion = Suggestions.nearest(e.key(), known).map(s -> "; did you mean '" + s + "'?")
                        .orElse("");
                diagnostics.error(e.keyLocation(), pathOf(e.key()), "unknown field; known fields here: "
                        + String.join(", ", known) + suggestion);
            }
        }
    }

    private SourceNode.Entry entry(String key) {
        return node == null ? null : node.entries().get(key);
    }

    private static boolean isNull(SourceNode n) {
        return n instanceof SourceNode.ScalarNode s && s.kind() == SourceNode.ScalarKind.NULL;
    }

    private static String fmt(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
    }
}

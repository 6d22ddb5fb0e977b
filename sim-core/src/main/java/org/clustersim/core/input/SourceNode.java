package org.clustersim.core.input;

import java.util.List;
import java.util.Map;

/**
 * A value read from an input file together with where it was written, so that every error
 * can name its line and column. Produced by {@link SourceTreeReader}.
 */
public sealed interface SourceNode permits SourceNode.MapNode, SourceNode.ListNode, SourceNode.ScalarNode {

    public SourceLocation location();

    /** What kind of value this is, for messages: "a mapping", "a list", "a number", ... */
    public String describe();

    /**
     * A mapping, keys in file order.
     *
     * @param entries  key to entry
     * @param location where the mapping starts
     */
    record MapNode(Map<String, Entry> entries, SourceLocation location) implements SourceNode {
        @Override
        public String describe() {
            return "a mapping";
        }
    }

    /**
     * One key of a mapping.
     *
     * @param key         the key
     * @param keyLocation where the key is written
     * @param value       its value
     */
    record Entry(String key, SourceLocation keyLocation, SourceNode value) {
    }

    /**
     * A list.
     *
     * @param items    the items in order
     * @param location where the list starts
     */
    record ListNode(List<SourceNode> items, SourceLocation location) implements SourceNode {
        @Override
        public String describe() {
            return "a list";
        }
    }

    /**
     * A scalar: string, number, boolean or null.
     *
     * @param kind     which of those
     * @param text     the scalar as written (numbers in their canonical text form)
     * @param location where it is written
     */
    record ScalarNode(ScalarKind kind, String text, SourceLocation location) implements SourceNode {
        @Override
        public String describe() {
            return switch (kind) {
                case STRING -> text.length() <= 60 ? "the text \"" + text + "\""
                        : "the text \"" + text.substring(0, 48) + "...\" (" + text.length() + " characters)";
                case INTEGER, DECIMAL -> "the number " + text;
                case BOOLEAN -> "the boolean " + text;
                case NULL -> "an empty value";
            };
        }
    }

    /** Kinds of scalar. */
    enum ScalarKind {
        STRING, INTEGER, DECIMAL, BOOLEAN, NULL
    }

    /**
     * {@code over} laid over {@code base}: mappings merge key by key (recursively), any other
     * value of {@code over} replaces the base's. Keys keep the base's order, new ones follow.
     */
    static SourceNode overlay(SourceNode base, MapNode over) {
        if (!(base instanceof MapNode b)) {
            return over;
        }
        Map<String, Entry> merged = new java.util.LinkedHashMap<>(b.entries());
        for (Entry e : over.entries().values()) {
            Entry old = merged.get(e.key());
            SourceNode value = old != null && e.value() instanceof MapNode m ? overlay(old.value(), m) : e.value();
            merged.put(e.key(), new Entry(e.key(), e.keyLocation(), value));
        }
        return new MapNode(merged, b.location());
    }
}

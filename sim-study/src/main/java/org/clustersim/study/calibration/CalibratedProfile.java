package org.clustersim.study.calibration;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The calibrated profile: a copy of the base profile's tree with the measured entries put in,
 * everything else left as it was and where it was. What is replaced:
 * <ul>
 * <li>{@code name}, when the calibrated profile is named differently;</li>
 * <li>{@code gemm.<dtype>.model} and {@code gemm.<dtype>.points} for each dtype measured
 *     (other dtypes and other keys of the entry are kept);</li>
 * <li>the {@code attention.tables} entries with a measured (impl, pass, headDim, causal), the
 *     list then sorted by those four ({@code attention.default} and the other tables are kept);</li>
 * <li>{@code memory.streamEfficiency};</li>
 * <li>the {@code collectives} entries with a measured (op, medium, ranks), the list then sorted by
 *     those three.</li>
 * </ul>
 * A section the base lacks is added after its last section, in the order gemm, attention,
 * memory, collectives.
 */
public final class CalibratedProfile {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private CalibratedProfile() {
    }

    /** The profile tree for {@code c}. */
    public static ObjectNode of(Calibration c) {
        ObjectNode profile = c.base().tree().deepCopy();
        if (!profile.path("name").asText("").equals(c.name())) {
            if (profile.has("name")) {
                profile.put("name", c.name());
            } else {
                ObjectNode named = NODES.objectNode();
                named.put("name", c.name());
                named.setAll(profile);
                profile = named;
            }
        }
        if (!c.gemm().isEmpty()) {
            ObjectNode gemm = section(profile, "gemm");
            for (GemmFit f : c.gemm()) {
                JsonNode existing = gemm.path(f.precision().id());
                ObjectNode entry = existing.isObject() ? (ObjectNode) existing : NODES.objectNode();
                ObjectNode model = NODES.objectNode();
                model.put("bestTflops", f.bestTflops());
                model.put("computeFactor", f.computeFactor());
                model.put("memoryFactor", f.memoryFactor());
                model.put("fixedUs", f.fixedUs());
                entry.set("model", model);
                ArrayNode points = NODES.arrayNode();
                for (GemmPoint p : f.points()) {
                    points.addArray().add(p.m()).add(p.n()).add(p.k()).add(p.tflops());
                }
                entry.set("points", points);
                gemm.set(f.precision().id(), entry);
            }
        }
        if (!c.attention().isEmpty()) {
            ObjectNode attention = section(profile, "attention");
            List<JsonNode> tables = new ArrayList<>();
            for (AttentionTable t : c.attention()) {
                ObjectNode entry = NODES.objectNode();
                entry.put("impl", t.key().impl());
                entry.put("pass", t.key().pass());
                entry.put("headDim", t.key().headDim());
                entry.put("causal", t.key().causal());
                ArrayNode points = entry.putArray("points");
                for (AttentionPoint p : t.points()) {
                    points.addArray().add(p.seqLen()).add(p.tflops());
                }
                tables.add(entry);
            }
            attention.set("tables", merged(attention.path("tables"), tables, List.of("impl", "pass", "headDim",
                    "causal")));
        }
        if (c.memory().isPresent()) {
            section(profile, "memory").put("streamEfficiency", c.memory().get().streamEfficiency());
        }
        if (!c.collectives().isEmpty()) {
            List<JsonNode> entries = new ArrayList<>();
            for (CollectiveFit f : c.collectives()) {
                ObjectNode entry = NODES.objectNode();
                entry.put("op", f.output().op().id());
                entry.put("medium", f.output().medium());
                entry.put("ranks", f.output().ranks());
                entry.put("latencyUs", f.latencyUs());
                entry.put("busBandwidthGBps", f.busBandwidthGBps());
                entries.add(entry);
            }
            profile.set("collectives", merged(profile.path("collectives"), entries, List.of("op", "medium", "ranks")));
        }
        return profile;
    }

    /** The mapping at {@code key}, added at the end when missing (a non-mapping there is replaced). */
    private static ObjectNode section(ObjectNode profile, String key) {
        JsonNode n = profile.path(key);
        if (n.isObject()) {
            return (ObjectNode) n;
        }
        return profile.putObject(key);
    }

    /**
     * The base's entries whose key fields differ from every measured entry's, plus the measured
     * entries, sorted by the key fields (numbers by value, booleans false first, text by name).
     */
    private static ArrayNode merged(JsonNode base, List<JsonNode> measured, List<String> keyFields) {
        List<JsonNode> all = new ArrayList<>();
        if (base.isArray()) {
            for (JsonNode old : base) {
                boolean replaced = measured.stream().anyMatch(m -> sameKey(old, m, keyFields));
                if (!replaced) {
                    all.add(old);
                }
            }
        }
        all.addAll(measured);
        Comparator<JsonNode> order = (a, b) -> 0;
        for (String field : keyFields) {
            order = order.thenComparing((a, b) -> compare(a.path(field), b.path(field)));
        }
        all.sort(order);
        ArrayNode out = NODES.arrayNode();
        all.forEach(out::add);
        return out;
    }

    private static boolean sameKey(JsonNode a, JsonNode b, List<String> keyFields) {
        for (String f : keyFields) {
            if (compare(a.path(f), b.path(f)) != 0) {
                return false;
            }
        }
        return true;
    }

    private static int compare(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) {
            return Double.compare(a.asDouble(), b.asDouble());
        }
        if (a.isBoolean() && b.isBoolean()) {
            return Boolean.compare(a.asBoolean(), b.asBoolean());
        }
        return a.asText("").compareTo(b.asText(""));
    }
}

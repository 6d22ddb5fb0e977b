package org.clustersim.study.calibration;

import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Writes a device profile tree as YAML in the profile's own layout, which Jackson's YAML
 * generator cannot produce (it writes every list item on its own lines): top-level sections
 * in block style; below them a list of scalars, or a mapping of scalars and lists of scalars,
 * on one line in flow style ({@code model: {bestTflops: 794.5, ...}}); list items always on one
 * line each ({@code - [256, 512, 256, 11.5]}, {@code - {op: all_reduce, ...}}). Keys keep the
 * tree's order. Numbers are written as the shortest decimal that reads back the same
 * ({@link ProfileNumber#plain}); strings plain when YAML reads them back as the same string,
 * double-quoted otherwise. The same tree always gives the same bytes.
 */
public final class ProfileYaml {
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z_][A-Za-z0-9_.\\-/]*");
    private static final Set<String> RESERVED = Set.of("true", "false", "null", "yes", "no", "on", "off", "y", "n");

    private ProfileYaml() {
    }

    /** The profile as YAML text, ending with a newline. */
    public static String write(ObjectNode profile) {
        StringBuilder sb = new StringBuilder();
        for (Iterator<Map.Entry<String, JsonNode>> it = profile.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            entry(sb, 0, e.getKey(), e.getValue(), true);
        }
        return sb.toString();
    }

    private static void entry(StringBuilder sb, int indent, String key, JsonNode value, boolean topLevel) {
        sb.append(" ".repeat(indent)).append(string(key)).append(':');
        if (!value.isContainerNode() || value.isEmpty() || (!topLevel && flat(value))) {
            sb.append(' ').append(flow(value)).append('\n');
            return;
        }
        sb.append('\n');
        if (value.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                entry(sb, indent + 2, e.getKey(), e.getValue(), false);
            }
        } else {
            for (JsonNode item : value) {
                sb.append(" ".repeat(indent + 2)).append("- ").append(flow(item)).append('\n');
            }
        }
    }

    /** A list of scalars, or a mapping of scalars and lists of scalars: what fits on one line. */
    private static boolean flat(JsonNode container) {
        for (JsonNode child : container) {
            if (child.isObject() || (child.isArray() && (container.isArray() || !scalars(child)))) {
                return false;
            }
        }
        return true;
    }

    private static boolean scalars(JsonNode list) {
        for (JsonNode item : list) {
            if (item.isContainerNode()) {
                return false;
            }
        }
        return true;
    }

    private static String flow(JsonNode value) {
        if (value.isObject()) {
            StringBuilder sb = new StringBuilder("{");
            for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                sb.append(string(e.getKey())).append(": ").append(flow(e.getValue()));
                if (it.hasNext()) {
                    sb.append(", ");
                }
            }
            return sb.append('}').toString();
        }
        if (value.isArray()) {
            StringBuilder sb = new StringBuilder("[");
            for (int i = 0; i < value.size(); i++) {
                sb.append(i > 0 ? ", " : "").append(flow(value.get(i)));
            }
            return sb.append(']').toString();
        }
        if (value.isNumber()) {
            if (value.isIntegralNumber()) {
                return value.bigIntegerValue().toString();
            }
            if (value.isBigDecimal()) {
                return value.decimalValue().stripTrailingZeros().toPlainString();
            }
            double d = value.doubleValue();
            if (Double.isNaN(d)) {
                return ".nan";
            }
            if (Double.isInfinite(d)) {
                return d > 0 ? ".inf" : "-.inf";
            }
            return ProfileNumber.plain(d);
        }
        if (value.isBoolean()) {
            return value.asText();
        }
        if (value.isNull() || value.isMissingNode()) {
            return "null";
        }
        return string(value.asText());
    }

    private static String string(String s) {
        if (PLAIN.matcher(s).matches() && !RESERVED.contains(s.toLowerCase(Locale.ROOT))) {
            return s;
        }
        return JsonNodeFactory.instance.textNode(s).toString();
    }
}

package org.clustersim.study.workload;

import java.nio.file.Path;

import org.clustersim.core.input.InputException;
import org.clustersim.study.workload.et.EtDef;

/**
 * One attribute of a trace node read as the type the simulation needs. Producers of traces
 * disagree on the protobuf type of a number (int64, uint64, int32, a whole double), so any
 * scalar number is accepted; a list, text where a number is expected, or a value out of range
 * is an error naming the file, node and attribute.
 */
final class AttributeValue {
    private final Path file;
    private final EtDef.Node node;
    private final EtDef.AttributeProto attr;

    AttributeValue(Path file, EtDef.Node node, EtDef.AttributeProto attr) {
        this.file = file;
        this.node = node;
        this.attr = attr;
    }

    /** A number in [min, max]. */
    double number(double min, double max) {
        double v = switch (attr.getValueCase()) {
            case DOUBLE_VAL -> attr.getDoubleVal();
            case FLOAT_VAL -> attr.getFloatVal();
            case INT32_VAL -> attr.getInt32Val();
            case INT64_VAL -> attr.getInt64Val();
            case UINT32_VAL -> Integer.toUnsignedLong(attr.getUint32Val());
            case UINT64_VAL -> unsigned(attr.getUint64Val());
            case SINT32_VAL -> attr.getSint32Val();
            case SINT64_VAL -> attr.getSint64Val();
            case FIXED32_VAL -> Integer.toUnsignedLong(attr.getFixed32Val());
            case FIXED64_VAL -> unsigned(attr.getFixed64Val());
            case SFIXED32_VAL -> attr.getSfixed32Val();
            case SFIXED64_VAL -> attr.getSfixed64Val();
            default -> throw error("holds " + kind() + "; expected a number");
        };
        if (!(v >= min && v <= max)) {
            throw error("is " + v + "; expected a number from " + (long) min + " up");
        }
        return v;
    }

    /** A whole number in [min, max]. */
    long integer(long min, long max) {
        double v = number(min, max);
        if (v != Math.rint(v)) {
            throw error("is " + v + "; expected a whole number");
        }
        if (attr.getValueCase() == EtDef.AttributeProto.ValueCase.INT64_VAL) {
            return attr.getInt64Val();
        }
        return (long) v;
    }

    String text() {
        if (attr.getValueCase() != EtDef.AttributeProto.ValueCase.STRING_VAL) {
            throw error("holds " + kind() + "; expected a string");
        }
        return attr.getStringVal();
    }

    boolean bool() {
        return switch (attr.getValueCase()) {
            case BOOL_VAL -> attr.getBoolVal();
            case INT32_VAL, INT64_VAL, UINT32_VAL, UINT64_VAL -> number(0, 1) != 0;
            default -> throw error("holds " + kind() + "; expected a bool");
        };
    }

    private static double unsigned(long v) {
        return v >= 0 ? v : (double) (v >>> 1) * 2.0;
    }

    private String kind() {
        return attr.getValueCase() == EtDef.AttributeProto.ValueCase.VALUE_NOT_SET ? "no value"
                : attr.getValueCase().name().toLowerCase(java.util.Locale.ROOT);
    }

    private InputException error(String what) {
        return new InputException(file + ": node " + node.getId() + " (" + node.getName() + "): attribute "
                + attr.getName() + " " + what);
    }
}

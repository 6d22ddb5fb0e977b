package org.clustersim.study.calibration;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.clustersim.core.input.InputError;

/**
 * A measurement file in comma-separated form: a header line naming the columns, then one row
 * per measurement. Blank lines and lines starting with {@code #} (comments, such as where the
 * numbers come from) are skipped; cells are trimmed; there is no quoting, since every cell is a
 * number or a name. Problems are added to the caller's error list with file and line, so that
 * one run reports all of them; the typed cell readers return an empty value for a bad cell.
 */
public final class CsvTable {
    /**
     * One data row.
     *
     * @param line  its line number in the file
     * @param cells column name to trimmed cell text, in header order
     */
    public record Row(int line, Map<String, String> cells) {
    }

    /** A plain decimal number, optionally with an exponent: no hexadecimal, no Infinity or NaN, no type suffix. */
    static final Pattern DECIMAL = Pattern.compile("[+]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");

    private final String source;
    private final int headerLine;
    private final List<String> columns;
    private final List<Row> rows;
    private final List<InputError> errors;

    private CsvTable(String source, int headerLine, List<String> columns, List<Row> rows,
                     List<InputError> errors) {
        this.source = source;
        this.headerLine = headerLine;
        this.columns = columns;
        this.rows = rows;
        this.errors = errors;
    }

    /**
     * A measurement table and the unit it gives its measurement in.
     *
     * @param table   the table
     * @param seconds true for {@code seconds} (a time, FLOPs from the shape), false for {@code tflops}
     */
    public record Timed(CsvTable table, boolean seconds) {
    }

    /**
     * {@link #read} and then {@link #secondsRatherThanTflops}: the table with its unit, or empty when
     * either reported why the file cannot be used (in {@code errors}).
     */
    public static Optional<Timed> readTimed(Path file, List<String> known, List<String> required, String describe,
                                            List<InputError> errors) {
        return read(file, known, required, describe, errors)
                .flatMap(t -> t.secondsRatherThanTflops().map(seconds -> new Timed(t, seconds)));
    }

    /**
     * Reads a file whose columns must be among {@code known} and must include {@code required}.
     *
     * @param describe  what the header should name, for messages (e.g. "m, n, k, dtype and seconds or tflops")
     * @return the table, or empty when the file cannot be used at all (the reason is in {@code errors})
     */
    public static Optional<CsvTable> read(Path file, List<String> known, List<String> required, String describe,
                                          List<InputError> errors) {
        String source = file.toString();
        Optional<List<String>> read = MeasurementFile.lines(file, "a CSV file with a header naming " + describe,
                errors);
        if (read.isEmpty()) {
            return Optional.empty();
        }
        List<String> lines = read.get();
        int headerLine = 0;
        List<String> columns = List.of();
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String text = lines.get(i).strip();
            if (i == 0 && text.startsWith("\uFEFF")) {
                text = text.substring(1);
            }
            if (text.isEmpty() || text.startsWith("#")) {
                continue;
            }
            int line = i + 1;
            List<String> cells = split(text);
            if (headerLine == 0) {
                headerLine = line;
                columns = header(source, line, cells, known, required, describe, errors);
                if (columns.isEmpty()) {
                    return Optional.empty();
                }
                continue;
            }
            if (cells.size() != columns.size()) {
                errors.add(InputError.at(source, line, "", "found " + cells.size() + " cells, expected "
                        + columns.size() + " (" + String.join(", ", columns) + ")"));
                continue;
            }
            Map<String, String> byName = new LinkedHashMap<>();
            for (int c = 0; c < columns.size(); c++) {
                byName.put(columns.get(c), cells.get(c));
            }
            rows.add(new Row(line, byName));
        }
        if (headerLine == 0) {
            errors.add(InputError.at(source, 0, "header", "found no header line, expected one naming "
                    + describe));
            return Optional.empty();
        }
        return Optional.of(new CsvTable(source, headerLine, columns, rows, errors));
    }

    private static List<String> split(String text) {
        List<String> cells = new ArrayList<>();
        for (String c : text.split(",", -1)) {
            cells.add(c.strip());
        }
        return cells;
    }

    private static List<String> header(String source, int line, List<String> cells, List<String> known,
                                       List<String> required, String describe, List<InputError> errors) {
        List<String> columns = new ArrayList<>();
        boolean ok = true;
        for (String c : cells) {
            if (!known.contains(c)) {
                errors.add(InputError.at(source, line, "header", "found column '" + c + "', expected one of "
                        + String.join(", ", known)));
                ok = false;
            } else if (columns.contains(c)) {
                errors.add(InputError.at(source, line, "header", "found column '" + c + "' twice, expected "
                        + "each column once"));
                ok = false;
            }
            columns.add(c);
        }
        for (String r : required) {
            if (!columns.contains(r)) {
                errors.add(InputError.at(source, line, "header", "found no column '" + r + "', expected "
                        + describe));
                ok = false;
            }
        }
        return ok ? List.copyOf(columns) : List.of();
    }

    /** The file as the user named it. */
    public String source() {
        return source;
    }

    /** The line of the header. */
    public int headerLine() {
        return headerLine;
    }

    /** Whether the header names {@code column}. */
    public boolean has(String column) {
        return columns.contains(column);
    }

    /**
     * Whether the table gives its measurement as {@code seconds} rather than {@code tflops};
     * empty, after recording an error at the header, when it has both or neither.
     */
    public Optional<Boolean> secondsRatherThanTflops() {
        boolean seconds = has("seconds");
        if (seconds == has("tflops")) {
            errors.add(InputError.at(source(), headerLine(), "header", "found "
                    + (seconds ? "both seconds and tflops" : "neither seconds nor tflops")
                    + ", expected one of the two"));
            return Optional.empty();
        }
        return Optional.of(seconds);
    }

    /** The data rows in file order. */
    public List<Row> rows() {
        return rows;
    }

    /** Adds an error about a row. */
    public void error(Row row, String column, String message) {
        errors.add(InputError.at(source, row.line(), column, message));
    }

    /** A whole number greater than zero. */
    public Optional<Long> positiveWhole(Row row, String column) {
        String text = row.cells().get(column);
        try {
            long v = Long.parseLong(text);
            if (v > 0) {
                return Optional.of(v);
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        error(row, column, "found " + shown(text) + ", expected a whole number greater than 0");
        return Optional.empty();
    }

    /** A finite number greater than zero. */
    public Optional<Double> positiveNumber(Row row, String column, String unit) {
        String text = row.cells().get(column);
        if (DECIMAL.matcher(text).matches()) {
            double v = Double.parseDouble(text);
            if (v > 0 && Double.isFinite(v)) {
                return Optional.of(v);
            }
        }
        error(row, column, "found " + shown(text) + ", expected a number greater than 0 (" + unit + ")");
        return Optional.empty();
    }

    /** One of a fixed set of names, matched regardless of case and returned in lower case. */
    public Optional<String> oneOf(Row row, String column, List<String> names, String why) {
        String text = row.cells().get(column);
        String lower = text.toLowerCase(Locale.ROOT);
        if (names.contains(lower)) {
            return Optional.of(lower);
        }
        error(row, column, "found " + shown(text) + ", expected " + alternatives(names) + why);
        return Optional.empty();
    }

    /** "a, b or c". */
    static String alternatives(List<String> names) {
        if (names.size() == 1) {
            return names.get(0);
        }
        return String.join(", ", names.subList(0, names.size() - 1)) + " or " + names.get(names.size() - 1);
    }

    private static String shown(String text) {
        return text.isEmpty() ? "an empty cell" : "'" + text + "'";
    }
}

package org.clustersim.study.calibration;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.clustersim.core.input.InputError;

/**
 * Measured GEMMs read from one or more CSV files with the columns {@code m, n, k, dtype} and
 * either {@code seconds} (one multiply's time) or {@code tflops}. A shape measured twice with the
 * same result counts once; with different results it is an error, as is a dtype with fewer
 * points than the three constants of the model need.
 *
 * @param byPrecision the points of each dtype present, sorted by (m, n, k)
 */
public record GemmMeasurements(Map<GemmPrecision, List<GemmPoint>> byPrecision) {
    static final List<String> COLUMNS = List.of("m", "n", "k", "dtype", "seconds", "tflops");
    static final String DESCRIBE = "m, n, k, dtype and either seconds or tflops";

    /** Reads every file; problems go to {@code errors}. */
    public static GemmMeasurements read(List<Path> files, List<InputError> errors) {
        Map<GemmPrecision, List<GemmPoint>> points = new EnumMap<>(GemmPrecision.class);
        Map<String, GemmPoint> seen = new HashMap<>();
        for (Path file : files) {
            Optional<CsvTable.Timed> read = CsvTable.readTimed(file, COLUMNS, List.of("m", "n", "k", "dtype"),
                    DESCRIBE, errors);
            if (read.isEmpty()) {
                continue;
            }
            CsvTable t = read.get().table();
            boolean seconds = read.get().seconds();
            for (CsvTable.Row row : t.rows()) {
                Optional<Long> m = t.positiveWhole(row, "m");
                Optional<Long> n = t.positiveWhole(row, "n");
                Optional<Long> k = t.positiveWhole(row, "k");
                Optional<String> dtype = t.oneOf(row, "dtype", GemmPrecision.ids(),
                        " (the GEMM precisions a profile holds)");
                Optional<Double> value = seconds ? t.positiveNumber(row, "seconds", "one multiply's time in seconds")
                        : t.positiveNumber(row, "tflops", "TFLOP/s");
                if (m.isEmpty() || n.isEmpty() || k.isEmpty() || dtype.isEmpty() || value.isEmpty()) {
                    continue;
                }
                GemmPrecision precision = GemmPrecision.byId(dtype.get()).orElseThrow();
                double flops = 2.0 * m.get() * n.get() * k.get();
                double tflops = seconds ? ProfileNumber.fitted(flops / value.get() / 1e12) : value.get();
                GemmPoint p = new GemmPoint(precision, m.get(), n.get(), k.get(), tflops, t.source(), row.line());
                String key = p.shape() + " " + precision.id();
                GemmPoint earlier = seen.putIfAbsent(key, p);
                if (earlier != null) {
                    if (Math.abs(earlier.tflops() - tflops) > 1e-9 * tflops) {
                        t.error(row, seconds ? "seconds" : "tflops", "found " + key + " at " + ProfileNumber.plain(tflops)
                                + " TFLOP/s, expected one result per shape and dtype: " + ProfileNumber.plain(earlier.tflops())
                                + " at " + earlier.source() + ":" + earlier.line());
                    }
                    continue;
                }
                points.computeIfAbsent(precision, x -> new ArrayList<>()).add(p);
            }
        }
        Map<GemmPrecision, List<GemmPoint>> sorted = new EnumMap<>(GemmPrecision.class);
        for (Map.Entry<GemmPrecision, List<GemmPoint>> e : points.entrySet()) {
            List<GemmPoint> list = new ArrayList<>(e.getValue());
            list.sort(Comparator.comparingLong(GemmPoint::m).thenComparingLong(GemmPoint::n)
                    .thenComparingLong(GemmPoint::k));
            if (list.size() < 3) {
                GemmPoint first = e.getValue().get(0);
                errors.add(InputError.at(first.source(), first.line(), "dtype", "found " + list.size() + " "
                        + e.getKey().id() + " point" + (list.size() == 1 ? "" : "s") + ", expected at least 3 (the "
                        + "model has three fitted constants)"));
            }
            sorted.put(e.getKey(), List.copyOf(list));
        }
        return new GemmMeasurements(sorted);
    }
}

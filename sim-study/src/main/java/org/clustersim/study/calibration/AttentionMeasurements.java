package org.clustersim.study.calibration;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.clustersim.core.input.InputError;

/**
 * Measured attention rates read from one or more CSV files with the columns {@code impl, pass,
 * headDim, causal, seqLen} and either {@code tflops}, or {@code seconds} together with
 * {@code batch} and {@code heads}. From seconds the FLOPs follow the FlashAttention benchmark
 * convention (benchmarks/benchmark_flash_attention.py): forward 4 x batch x seqLen^2 x heads x
 * headDim, halved when causal; backward 2.5 times the forward. A point measured twice with
 * different results is an error.
 *
 * @param tables one table per (impl, pass, headDim, causal), in the profile's order
 */
public record AttentionMeasurements(List<AttentionTable> tables) {
    static final List<String> COLUMNS = List.of("impl", "pass", "headDim", "causal", "seqLen", "batch", "heads",
            "seconds", "tflops");
    static final String DESCRIBE = "impl, pass, headDim, causal, seqLen and either tflops or seconds with batch "
            + "and heads";

    /** FLOPs of one attention call by the FlashAttention benchmark convention. */
    public static double flops(String pass, boolean causal, long batch, long seqLen, long heads, long headDim) {
        double forward = 4.0 * batch * seqLen * (double) seqLen * heads * headDim / (causal ? 2 : 1);
        return pass.equals("backward") ? 2.5 * forward : forward;
    }

    /** The number of points over all tables. */
    public int pointCount() {
        return tables.stream().mapToInt(t -> t.points().size()).sum();
    }

    /** Reads every file; problems go to {@code errors}. */
    public static AttentionMeasurements read(List<Path> files, List<InputError> errors) {
        Map<AttentionTable.Key, List<AttentionPoint>> byKey = new TreeMap<>(AttentionTable.Key.ORDER);
        Map<String, AttentionPoint> seen = new HashMap<>();
        for (Path file : files) {
            Optional<CsvTable.Timed> read = CsvTable.readTimed(file, COLUMNS, List.of("impl", "pass", "headDim",
                    "causal", "seqLen"), DESCRIBE, errors);
            if (read.isEmpty()) {
                continue;
            }
            CsvTable t = read.get().table();
            boolean seconds = read.get().seconds();
            if (seconds && !(t.has("batch") && t.has("heads"))) {
                errors.add(InputError.at(t.source(), t.headerLine(), "header", "found seconds without "
                        + (t.has("batch") ? "heads" : t.has("heads") ? "batch" : "batch and heads")
                        + ", expected batch and heads beside seconds (they give the FLOPs)"));
                continue;
            }
            for (CsvTable.Row row : t.rows()) {
                Optional<String> impl = t.oneOf(row, "impl", AttentionTable.IMPLS, "");
                Optional<String> pass = t.oneOf(row, "pass", AttentionTable.PASSES, "");
                Optional<Long> headDim = t.positiveWhole(row, "headDim");
                Optional<String> causal = t.oneOf(row, "causal", List.of("true", "false"), "");
                Optional<Long> seqLen = t.positiveWhole(row, "seqLen");
                Optional<Long> batch = t.has("batch") ? t.positiveWhole(row, "batch") : Optional.of(1L);
                Optional<Long> heads = t.has("heads") ? t.positiveWhole(row, "heads") : Optional.of(1L);
                Optional<Double> value = seconds ? t.positiveNumber(row, "seconds", "one call's time in seconds")
                        : t.positiveNumber(row, "tflops", "TFLOP/s");
                if (impl.isEmpty() || pass.isEmpty() || headDim.isEmpty() || causal.isEmpty() || seqLen.isEmpty()
                        || batch.isEmpty() || heads.isEmpty() || value.isEmpty()) {
                    continue;
                }
                AttentionTable.Key key = new AttentionTable.Key(impl.get(), pass.get(), headDim.get(),
                        causal.get().equals("true"));
                double tflops = seconds ? ProfileNumber.fitted(flops(key.pass(), key.causal(), batch.get(),
                        seqLen.get(), heads.get(), key.headDim()) / value.get() / 1e12) : value.get();
                AttentionPoint p = new AttentionPoint(key, seqLen.get(), tflops, t.source(), row.line());
                String id = key.describe() + " seqLen " + seqLen.get();
                AttentionPoint earlier = seen.putIfAbsent(id, p);
                if (earlier != null) {
                    if (Math.abs(earlier.tflops() - tflops) > 1e-9 * tflops) {
                        t.error(row, seconds ? "seconds" : "tflops", "found " + id + " at "
                                + ProfileNumber.plain(tflops) + " TFLOP/s, expected one result per kernel, pass, "
                                + "head size, mask and length: " + ProfileNumber.plain(earlier.tflops()) + " at "
                                + earlier.source() + ":" + earlier.line());
                    }
                    continue;
                }
                byKey.computeIfAbsent(key, x -> new ArrayList<>()).add(p);
            }
        }
        List<AttentionTable> tables = new ArrayList<>();
        for (Map.Entry<AttentionTable.Key, List<AttentionPoint>> e : byKey.entrySet()) {
            List<AttentionPoint> points = new ArrayList<>(e.getValue());
            points.sort(Comparator.comparingLong(AttentionPoint::seqLen));
            tables.add(new AttentionTable(e.getKey(), List.copyOf(points)));
        }
        return new AttentionMeasurements(List.copyOf(tables));
    }
}

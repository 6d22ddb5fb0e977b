package org.clustersim.study.calibration;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.clustersim.core.input.InputFileException;
import org.clustersim.core.input.InputError;

/**
 * One calibration: a base profile and the user's measurements, checked against each other and
 * fitted. Every problem in every input is collected before anything is fitted, and nothing is
 * returned (so nothing is written) unless there are none.
 *
 * @param base        the profile started from
 * @param name        the name of the calibrated profile
 * @param gemm        one GEMM fit per dtype measured, in dtype order
 * @param attention   the measured attention tables, in the profile's order
 * @param memory      the streaming efficiency, when a bandwidth was measured
 * @param collectives one fit per nccl-tests file, sorted by operation, medium and ranks
 */
public record Calibration(BaseProfile base, String name, List<GemmFit> gemm, List<AttentionTable> attention,
                          Optional<MemoryFit> memory, List<CollectiveFit> collectives) {

    /**
     * What the user gave.
     *
     * @param base                  a bundled profile name or a profile file
     * @param name                  the calibrated profile's name, if not the base's
     * @param gemm                  GEMM CSV files
     * @param gemmBest              a given ceiling rate per dtype (MAMF's best, say) instead of the largest measured
     * @param attention             attention CSV files
     * @param memoryBandwidthTBps   an achieved streaming bandwidth
     * @param nccl                  nccl-tests output files
     * @param ncclOp                the operation of nccl-tests files that do not name it
     */
    public record Inputs(String base, Optional<String> name, List<Path> gemm, Map<GemmPrecision, Double> gemmBest,
                         List<Path> attention, Optional<Double> memoryBandwidthTBps, List<Path> nccl,
                         Optional<NcclOp> ncclOp) {
    }

    /** Order of the profile's collectives entries. */
    public static final Comparator<CollectiveFit> COLLECTIVE_ORDER = Comparator
            .comparing((CollectiveFit f) -> f.output().op().id())
            .thenComparing(f -> f.output().medium())
            .thenComparingInt(f -> f.output().ranks());

    /** The errors of each source together, sources in the order they were first named, lines in file order. */
    static List<InputError> inFileOrder(List<InputError> errors) {
        List<String> sources = new ArrayList<>();
        for (InputError e : errors) {
            if (!sources.contains(e.file().toString())) {
                sources.add(e.file().toString());
            }
        }
        List<InputError> sorted = new ArrayList<>(errors);
        sorted.sort(Comparator.comparingInt((InputError e) -> sources.indexOf(e.file().toString()))
                .thenComparingInt(e -> e.location().line()));
        return sorted;
    }

    /**
     * Reads, checks and fits everything.
     *
     * @throws InputFileException with every problem found
     */
    public static Calibration run(Inputs in) {
        List<InputError> errors = new ArrayList<>();
        Optional<BaseProfile> loaded = BaseProfile.load(in.base(), errors);
        GemmMeasurements gemm = GemmMeasurements.read(in.gemm(), errors);
        AttentionMeasurements attention = AttentionMeasurements.read(in.attention(), errors);
        List<NcclTestsOutput> nccl = new ArrayList<>();
        for (Path file : in.nccl()) {
            NcclTestsOutput.read(file, in.ncclOp(), errors).ifPresent(nccl::add);
        }
        Map<String, NcclTestsOutput> byKey = new HashMap<>();
        for (NcclTestsOutput o : nccl) {
            String key = o.op().id() + " over " + o.ranks() + " ranks on " + o.medium();
            NcclTestsOutput earlier = byKey.putIfAbsent(key, o);
            if (earlier != null) {
                errors.add(InputError.at(o.source(), 0, "", "found " + key + ", already measured in "
                        + earlier.source() + ", expected one file per operation, medium and rank count"));
            }
        }
        for (Map.Entry<GemmPrecision, Double> e : in.gemmBest().entrySet()) {
            if (!gemm.byPrecision().containsKey(e.getKey())) {
                errors.add(InputError.at("--gemm-best", 0, "", "found " + e.getKey().id() + "=" + ProfileNumber
                        .plain(e.getValue()) + ", expected a dtype with points in the --gemm files"));
            }
        }
        if (loaded.isEmpty()) {
            throw new InputFileException(inFileOrder(errors));
        }
        BaseProfile base = loaded.get();
        String name = in.name().or(base::name).orElse(null);
        if (name == null) {
            errors.add(InputError.at(base.source(), 0, "name", "found nothing, expected the profile's name "
                    + "(or give --name)"));
        }
        Optional<Double> bandwidth = Optional.empty();
        if (!gemm.byPrecision().isEmpty() || in.memoryBandwidthTBps().isPresent()) {
            bandwidth = base.positive("memory.bandwidthTBps", "the HBM bandwidth in TB/s (a number > 0)", errors);
        }
        Map<GemmPrecision, Double> peaks = new EnumMap<>(GemmPrecision.class);
        for (Map.Entry<GemmPrecision, List<GemmPoint>> e : gemm.byPrecision().entrySet()) {
            String id = e.getKey().id();
            Optional<Double> peak = base.positive("peakTflops." + id, "the chip's dense " + id + " peak in TFLOP/s "
                    + "(a number > 0)", errors);
            if (peak.isEmpty()) {
                continue;
            }
            peaks.put(e.getKey(), peak.get());
            for (GemmPoint p : e.getValue()) {
                if (p.tflops() > peak.get()) {
                    errors.add(InputError.at(p.source(), p.line(), "tflops", "found " + ProfileNumber.plain(
                            p.tflops()) + " TFLOP/s for " + p.shape() + " " + id + ", expected at most the chip's "
                            + "dense peak, " + ProfileNumber.plain(peak.get()) + " (peakTflops." + id + " of "
                            + base.source() + ")"));
                }
            }
            Double best = in.gemmBest().get(e.getKey());
            // a ceiling below the fastest point is allowed: the user's own library (cuBLAS, say) may
            // not reach what another measured; the surface caps those points at it
            if (best != null && !(best > 0 && best <= peak.get())) {
                errors.add(InputError.at("--gemm-best", 0, "", "found " + id + "=" + ProfileNumber.plain(
                        best) + ", expected a rate above 0 and at most the dense peak, "
                        + ProfileNumber.plain(peak.get())));
            }
        }
        Optional<MemoryFit> memory = Optional.empty();
        if (in.memoryBandwidthTBps().isPresent() && bandwidth.isPresent()) {
            double achieved = in.memoryBandwidthTBps().get();
            if (achieved > bandwidth.get()) {
                errors.add(InputError.at("--memory-bandwidth", 0, "", "found " + ProfileNumber.plain(achieved)
                        + " TB/s, expected at most the HBM bandwidth, " + ProfileNumber.plain(bandwidth.get())
                        + " (memory.bandwidthTBps of " + base.source() + ")"));
            } else {
                memory = Optional.of(MemoryFit.of(achieved, bandwidth.get()));
            }
        }
        if (!errors.isEmpty()) {
            throw new InputFileException(inFileOrder(errors));
        }
        List<GemmFit> gemmFits = new ArrayList<>();
        for (Map.Entry<GemmPrecision, List<GemmPoint>> e : gemm.byPrecision().entrySet()) {
            Optional<GemmFit> fit = GemmFit.fit(e.getValue(), peaks.get(e.getKey()), bandwidth.orElseThrow(),
                    Optional.ofNullable(in.gemmBest().get(e.getKey())));
            if (fit.isEmpty()) {
                GemmPoint first = e.getValue().get(0);
                errors.add(InputError.at(first.source(), first.line(), "dtype", "found " + e.getValue().size()
                        + " " + e.getKey().id() + " points that do not determine the three constants, expected shapes "
                        + "that differ in arithmetic intensity (mnk / (mk + kn + mn)) as well as in size"));
            } else {
                gemmFits.add(fit.get());
            }
        }
        List<CollectiveFit> collectives = new ArrayList<>();
        for (NcclTestsOutput o : nccl) {
            CollectiveFit.fit(o, errors).ifPresent(collectives::add);
        }
        if (!errors.isEmpty()) {
            throw new InputFileException(inFileOrder(errors));
        }
        collectives.sort(COLLECTIVE_ORDER);
        return new Calibration(base, name, List.copyOf(gemmFits), attention.tables(), memory,
                List.copyOf(collectives));
    }
}

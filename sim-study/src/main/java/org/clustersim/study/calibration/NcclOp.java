package org.clustersim.study.calibration;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The operations nccl-tests measures, by the names of its programs without {@code _perf}
 * ({@code all_reduce_perf} is {@code all_reduce}), which are also the names a profile's
 * {@code collectives} entries use, with nccl-tests' bus-bandwidth factor (src/*.cu, {@code
 * GetBw}): busbw = algbw x factor, algbw = size / time, where size is the column nccl-tests
 * prints (the whole gathered or reduced array).
 */
public enum NcclOp {
    /** 2(n-1)/n; a reduction (redop column names the operator), no root. */
    ALL_REDUCE("all_reduce", true, false),
    /** (n-1)/n; no reduction, no root. */
    ALL_GATHER("all_gather", false, false),
    /** (n-1)/n; a reduction, no root. */
    REDUCE_SCATTER("reduce_scatter", true, false),
    /** (n-1)/n; no reduction, no root. */
    ALLTOALL("alltoall", false, false),
    /** 1; no reduction, a root. */
    BROADCAST("broadcast", false, true),
    /** 1; a reduction, a root. */
    REDUCE("reduce", true, true),
    /** (n-1)/n; no reduction, a root. */
    GATHER("gather", false, true),
    /** (n-1)/n; no reduction, a root. */
    SCATTER("scatter", false, true),
    /** 1; prints the default reduction operator although it reduces nothing, no root. */
    SENDRECV("sendrecv", false, false);

    private final String id;
    private final boolean reduces;
    private final boolean rooted;

    NcclOp(String id, boolean reduces, boolean rooted) {
        this.id = id;
        this.reduces = reduces;
        this.rooted = rooted;
    }

    /** The profile's and nccl-tests' name. */
    public String id() {
        return id;
    }

    /** busbw / algbw over {@code n} ranks, as nccl-tests computes it. */
    public double busFactor(int n) {
        return switch (this) {
            case ALL_REDUCE -> 2.0 * (n - 1) / n;
            case ALL_GATHER, REDUCE_SCATTER, ALLTOALL, GATHER, SCATTER -> (n - 1) / (double) n;
            case BROADCAST, REDUCE, SENDRECV -> 1;
        };
    }

    /** Whether nccl-tests' redop column can be {@code value} for this operation (sendrecv: any). */
    public boolean acceptsRedop(String value) {
        if (this == SENDRECV) {
            return true;
        }
        return reduces != value.equals("none");
    }

    /** Whether nccl-tests' root column can be {@code root} for this operation. */
    public boolean acceptsRoot(int root) {
        return rooted ? root >= 0 : root == -1;
    }

    /** Every name, in declaration order. */
    public static List<String> ids() {
        List<String> ids = new ArrayList<>();
        for (NcclOp op : values()) {
            ids.add(op.id);
        }
        return ids;
    }

    /**
     * The operation of an nccl-tests program ({@code all_reduce_perf}, {@code all_reduce_perf_mpi}).
     * Empty for programs whose sizes follow other conventions ({@code alltoallv_perf}, {@code hypercube_perf}).
     */
    public static Optional<NcclOp> ofProgram(String program) {
        String s = program.toLowerCase(Locale.ROOT);
        if (s.endsWith(".exe")) {
            s = s.substring(0, s.length() - 4);
        }
        if (s.endsWith("_mpi")) {
            s = s.substring(0, s.length() - 4);
        }
        if (!s.endsWith("_perf")) {
            return Optional.empty();
        }
        String id = s.substring(0, s.length() - 5);
        for (NcclOp op : values()) {
            if (op.id.equals(id)) {
                return Optional.of(op);
            }
        }
        return Optional.empty();
    }

    /** The operation named {@code id}: a profile name, also written without underscores (allreduce). */
    public static Optional<NcclOp> byId(String id) {
        String plain = id.toLowerCase(Locale.ROOT).replace("_", "").replace("-", "");
        for (NcclOp op : values()) {
            if (op.id.replace("_", "").equals(plain)) {
                return Optional.of(op);
            }
        }
        return Optional.empty();
    }

    /**
     * The operation a program name or a file name stands for: {@code all_reduce_perf},
     * {@code all_reduce_perf_mpi}, {@code allreduce-8gpu.txt}. Empty when none or more than one
     * operation name appears in it ({@code reduce} does not count inside {@code all_reduce} or
     * {@code reduce_scatter}).
     */
    public static Optional<NcclOp> inName(String name) {
        String s = name.toLowerCase(Locale.ROOT).replace('-', '_');
        List<NcclOp> found = new ArrayList<>();
        // longest names first, each match blanked out so that "reduce" is not found again inside "all_reduce"
        NcclOp[] order = {REDUCE_SCATTER, ALL_REDUCE, ALL_GATHER, ALLTOALL, BROADCAST, SENDRECV, REDUCE, GATHER,
            SCATTER};
        for (NcclOp op : order) {
            for (String spelling : List.of(op.id, op.id.replace("_", ""))) {
                if (s.contains(spelling)) {
                    if (!found.contains(op)) {
                        found.add(op);
                    }
                    s = s.replace(spelling, "#".repeat(spelling.length()));
                }
            }
        }
        return found.size() == 1 ? Optional.of(found.get(0)) : Optional.empty();
    }
}

package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The device mesh of a parallel layout: tensor (TP), context (CP), pipeline (PP) and data (DP)
 * dimensions laid over the cluster's GPU numbering in a chosen order, innermost first. The
 * default, TP then CP then PP then DP, keeps each TP group inside one server's NVLink domain
 * and puts the data-parallel replicas furthest apart, as Megatron-LM and Llama 3 do. The MoE
 * layers have a mesh of their own folded over each pipeline stage's tp x cp x dp GPUs, expert
 * TP (etp) x expert parallelism (ep) x expert data parallelism (edp) ({@link ExpertMesh},
 * Megatron-core's "MoE parallel folding", arXiv 2504.14960). With etp = tp (Megatron-core's
 * default) and cp = 1, an EP group is {@code ep} consecutive data-parallel ranks at the same TP
 * and PP position.
 *
 * @param tp    tensor-parallel size
 * @param cp    context-parallel size
 * @param pp    pipeline-parallel size
 * @param dp    data-parallel size
 * @param ep    expert-parallel size
 * @param etp   expert tensor-parallel size; etp x ep must divide tp x cp x dp, and etp must divide
 *              tp x cp (an expert TP group inside one pipeline rank of one replica)
 * @param order the four dimensions, innermost (consecutive GPU numbers) first
 */
public record Mesh(int tp, int cp, int pp, int dp, int ep, int etp, List<Dim> order) {

    /** A mesh dimension. */
    public enum Dim {
        TP, CP, PP, DP;

        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** TP, CP, PP, DP from the inside out. */
    public static final List<Dim> DEFAULT_ORDER = List.of(Dim.TP, Dim.CP, Dim.PP, Dim.DP);

    public Mesh {
        if (tp < 1 || cp < 1 || pp < 1 || dp < 1 || ep < 1 || etp < 1) {
            throw new IllegalArgumentException("mesh sizes must be at least 1");
        }
        if ((tp * cp * dp) % (etp * ep) != 0) {
            throw new IllegalArgumentException("expert TP " + etp + " x expert parallelism " + ep + " must divide a "
                    + "pipeline stage's tp x cp x dp = " + tp * cp * dp + " GPUs");
        }
        if ((tp * cp) % etp != 0) {
            throw new IllegalArgumentException("expert TP " + etp + " must divide tp x cp = " + tp * cp
                    + ": an expert TP group wider than a pipeline rank is not modelled");
        }
        order = List.copyOf(order);
        if (order.size() != 4 || !order.containsAll(DEFAULT_ORDER)) {
            throw new IllegalArgumentException("the mesh order must name tp, cp, pp and dp once each, not " + order);
        }
    }

    /** TP, CP, PP, DP in the default order, no expert parallelism. */
    public Mesh(int tp, int cp, int pp, int dp) {
        this(tp, cp, pp, dp, 1, DEFAULT_ORDER);
    }

    /** Expert TP equal to TP, Megatron-core's default when expert_tensor_parallel_size is unset. */
    public Mesh(int tp, int cp, int pp, int dp, int ep, List<Dim> order) {
        this(tp, cp, pp, dp, ep, tp, order);
    }

    /** The MoE layers' mesh folded over each stage's GPUs. */
    public ExpertMesh experts() {
        return new ExpertMesh(this);
    }

    /**
     * Parses an order such as {@code tp-cp-pp-dp} or {@code tp,dp,pp,cp} (innermost first).
     *
     * @throws IllegalArgumentException when a dimension is unknown, missing or repeated
     */
    public static List<Dim> parseOrder(String text) {
        List<Dim> dims = new ArrayList<>();
        for (String part : text.toLowerCase(Locale.ROOT).split("[-,\\s]+")) {
            Dim dim = Arrays.stream(Dim.values()).filter(d -> d.id().equals(part)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("unknown mesh dimension '" + part
                            + "'; expected tp, cp, pp and dp"));
            if (dims.contains(dim)) {
                throw new IllegalArgumentException(part + " appears twice; name tp, cp, pp and dp once each");
            }
            dims.add(dim);
        }
        if (dims.size() != 4) {
            throw new IllegalArgumentException("found " + dims.size() + " dimensions; name tp, cp, pp and dp once each");
        }
        return dims;
    }

    /** The order as written in a scenario, innermost first. */
    public String orderText() {
        return String.join("-", order.stream().map(Dim::id).toList());
    }

    public int size(Dim dim) {
        return switch (dim) {
            case TP -> tp;
            case CP -> cp;
            case PP -> pp;
            case DP -> dp;
        };
    }

    /** GPUs the mesh occupies. */
    public int gpus() {
        return tp * cp * pp * dp;
    }

    /** Distance in GPU numbers between neighbours along {@code dim}. */
    public int stride(Dim dim) {
        int stride = 1;
        for (Dim d : order) {
            if (d == dim) {
                return stride;
            }
            stride *= size(d);
        }
        throw new IllegalStateException("unreachable: every dimension is in the order");
    }

    /** The GPU at (TP rank, CP rank, PP rank, DP rank). */
    public int device(int t, int c, int p, int d) {
        return t * stride(Dim.TP) + c * stride(Dim.CP) + p * stride(Dim.PP) + d * stride(Dim.DP);
    }

    /** Where a GPU sits in the mesh. */
    public record Coordinates(int tp, int cp, int pp, int dp) {
    }

    /** The inverse of {@link #device}. */
    public Coordinates coordinates(int device) {
        return new Coordinates(coordinate(device, Dim.TP), coordinate(device, Dim.CP), coordinate(device, Dim.PP),
                coordinate(device, Dim.DP));
    }

    private int coordinate(int device, Dim dim) {
        return (device / stride(dim)) % size(dim);
    }

    /**
     * The GPUs that hold the same weights as TP rank t of pipeline rank p and reduce their
     * gradients together: every context and data-parallel rank, ordered replica by replica (so
     * the first {@code r x cp} are those of the first r replicas).
     */
    public int[] gradientGroup(int t, int p) {
        int[] group = new int[dp * cp];
        int base = t * stride(Dim.TP) + p * stride(Dim.PP);
        int cs = stride(Dim.CP);
        int ds = stride(Dim.DP);
        for (int d = 0; d < dp; d++) {
            for (int c = 0; c < cp; c++) {
                group[d * cp + c] = base + c * cs + d * ds;
            }
        }
        return group;
    }

    /** The expert-parallel group of a GPU ({@link ExpertMesh#expertParallelGroup}). */
    public int[] expertGroup(int device) {
        return experts().expertParallelGroup(device);
    }
}

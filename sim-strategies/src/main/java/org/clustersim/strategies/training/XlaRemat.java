package org.clustersim.strategies.training;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * A MaxText remat policy as XLA keeps memory under it: which of a decoder layer's named
 * tensors stay in HBM for the backward ({@code device}) and which are moved to pinned host
 * memory ({@code host}); every other tensor of the layer is recomputed. The scan over layers
 * stacks the kept tensors of every layer (one buffer per name, L layers deep).
 *
 * <p>The names and sets are MaxText's ({@code Decoder.get_remat_policy} and
 * {@code minimal_policy} in src/maxtext/layers/decoders.py, {@code get_save_and_offload_names}
 * in src/maxtext/utils/maxtext_utils.py, AI-Hypercomputer/maxtext@e591f30c): the layer input
 * ({@code decoder_layer_input}, the scan's carry) is always kept on the device, except under
 * {@code custom} where it may be offloaded. {@code none} is not a MaxText policy at that commit
 * (MaxText's {@code "none"} falls through to {@code nn.remat} with no policy, which saves
 * nothing); here it keeps everything, the no-remat picture.
 *
 * @param policy the policy's name
 * @param device tensors kept in HBM (the layer input included)
 * @param host   tensors offloaded to host memory
 * @param all    whether every intermediate of the layer is kept (no remat at all)
 */
public record XlaRemat(String policy, Set<Tensor> device, Set<Tensor> host, boolean all) {

    public XlaRemat {
        device = Set.copyOf(device);
        host = Set.copyOf(host);
        for (Tensor t : host) {
            if (device.contains(t)) {
                throw new IllegalArgumentException(t.id() + " is both kept on the device and offloaded");
            }
        }
    }

    /** A decoder layer's checkpoint names (MaxText's {@code checkpoint_name} calls). */
    public enum Tensor {
        /** The layer's input, the scan carry: h per token. */
        DECODER_LAYER_INPUT,
        /** The queries: heads x d per token ({@code query_proj}). */
        QUERY_PROJ,
        /** The keys: kv heads x d per token ({@code key_proj}; fused {@code kv_proj}, {@code qkv_proj} alike). */
        KEY_PROJ,
        /** The values: kv heads x d_v per token ({@code value_proj}). */
        VALUE_PROJ,
        /** The attention output before the output projection: heads x d_v per token ({@code context}). */
        CONTEXT,
        /** The output projection's output: h per token ({@code out_proj}). */
        OUT_PROJ,
        /** The MLP's input projections' outputs: ffn per matrix (one, or two gated; {@code mlpwi}, {@code mlpwi_0}, {@code mlpwi_1}). */
        MLPWI,
        /** The MLP's output projection's output: h per token ({@code mlpwo}). */
        MLPWO;

        /** MaxText's name. */
        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private static final Set<Tensor> QKV = EnumSet.of(Tensor.QUERY_PROJ, Tensor.KEY_PROJ, Tensor.VALUE_PROJ);

    /** Every named dot output but the context ({@code minimal_policy} without context). */
    private static Set<Tensor> dots() {
        Set<Tensor> s = EnumSet.copyOf(QKV);
        s.addAll(EnumSet.of(Tensor.OUT_PROJ, Tensor.MLPWI, Tensor.MLPWO));
        return s;
    }

    private static Set<Tensor> withInput(Set<Tensor> names) {
        Set<Tensor> s = EnumSet.of(Tensor.DECODER_LAYER_INPUT);
        s.addAll(names);
        return s;
    }

    private static XlaRemat saving(String name, Set<Tensor> saved) {
        return new XlaRemat(name, withInput(saved), Set.of(), false);
    }

    private static XlaRemat offloading(String name, Set<Tensor> offloaded) {
        return new XlaRemat(name, withInput(Set.of()), offloaded, false);
    }

    /** {@code full}: only the layer input is kept. */
    public static XlaRemat full() {
        return saving("full", Set.of());
    }

    /** {@code none}: nothing is recomputed; every intermediate of the layer is kept. */
    public static XlaRemat none() {
        return new XlaRemat("none", EnumSet.allOf(Tensor.class), Set.of(), true);
    }

    /**
     * MaxText's policy of this name, or null when there is none. {@code custom} is not here
     * (its per-tensor choices are {@link #custom}'s).
     */
    public static XlaRemat named(String name) {
        Set<Tensor> dots = dots();
        Set<Tensor> dotsWithContext = EnumSet.copyOf(dots);
        dotsWithContext.add(Tensor.CONTEXT);
        Set<Tensor> attention = EnumSet.copyOf(QKV);
        attention.add(Tensor.OUT_PROJ);
        return switch (name) {
            case "full" -> full();
            case "none" -> none();
            case "minimal" -> saving(name, dots);
            case "minimal_with_context" -> saving(name, dotsWithContext);
            case "save_dot_with_context_except_mlp" -> {
                Set<Tensor> s = EnumSet.copyOf(attention);
                s.add(Tensor.CONTEXT);
                yield saving(name, s);
            }
            case "save_dot_except_mlpwi" -> {
                Set<Tensor> s = EnumSet.copyOf(attention);
                s.add(Tensor.MLPWO);
                yield saving(name, s);
            }
            case "save_dot_except_mlp" -> saving(name, attention);
            case "save_qkv_proj" -> saving(name, QKV);
            case "save_out_proj" -> saving(name, Set.of(Tensor.OUT_PROJ));
            case "qkv_proj_offloaded" -> offloading(name, QKV);
            case "minimal_offloaded" -> offloading(name, dots);
            default -> null;
        };
    }

    /**
     * {@code custom}: each tensor kept on the device, offloaded, or recomputed (those in
     * neither set). The layer input cannot be recomputed (base.yml): kept unless offloaded.
     */
    public static XlaRemat custom(Set<Tensor> device, Set<Tensor> host) {
        Set<Tensor> d = EnumSet.noneOf(Tensor.class);
        d.addAll(device);
        if (!host.contains(Tensor.DECODER_LAYER_INPUT)) {
            d.add(Tensor.DECODER_LAYER_INPUT);
        }
        return new XlaRemat("custom", d, host, false);
    }
}

package org.clustersim.study.scenario;

import static org.clustersim.study.scenario.ScenarioFields.*;
import static org.clustersim.study.scenario.SectionChecks.given;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import org.clustersim.core.input.Section;
import org.clustersim.strategies.device.AttentionImpl;
import org.clustersim.strategies.device.DeviceProfile;
import org.clustersim.strategies.model.AttentionShape;
import org.clustersim.strategies.model.LatentAttention;
import org.clustersim.strategies.model.PositionEmbedding;
import org.clustersim.strategies.model.SlidingWindow;
import org.clustersim.strategies.model.TransformerModel;

/**
 * The {@code model} section of a scenario: a preset or the dimensions given, the attention shape
 * (head dimension, positions, sliding window, latent attention), the mixture of experts, and
 * {@code model.attention}, which needs the cluster's device profile and so is read later. Kept
 * apart from {@link ScenarioReader}, which calls it in the order its errors are listed.
 */
final class ModelSectionReader {
    /** The {@code model} section. */
    private final Section section;

    ModelSectionReader(Section model) {
        this.section = model;
    }

    /** The model, a preset with the fields given laid over it; empty after reporting errors. */
    Optional<TransformerModel> read() {
        TransformerModel p = MODEL_PRESET.choice(section);
        // An unknown preset was reported already; read the other fields without demanding them.
        boolean badPreset = p == null && given(section, "preset");
        Optional<TransformerModel> preset = Optional.ofNullable(p);
        String name = MODEL_NAME.text(section).orElse(preset.map(TransformerModel::name).orElse("custom"));
        Optional<Integer> layers = dim(LAYERS, badPreset, preset.map(TransformerModel::layers));
        Optional<Integer> hidden = dim(HIDDEN, badPreset, preset.map(TransformerModel::hidden));
        Optional<Integer> heads = dim(HEADS, badPreset, preset.map(TransformerModel::heads));
        Optional<Integer> ffn = FFN.optionalInteger(section)
                .or(() -> preset.map(TransformerModel::ffn)).or(() -> hidden.map(h -> 4 * h));
        Optional<Integer> vocab = dim(VOCAB, badPreset, preset.map(TransformerModel::vocab));
        Optional<Integer> kvHeads = KV_HEADS.optionalInteger(section)
                .or(() -> preset.map(TransformerModel::kvHeads)).or(() -> heads);
        TransformerModel.FfnKind ffnKind = FFN_KIND.choice(section, preset.map(TransformerModel::ffnKind)
                .orElse(TransformerModel.FfnKind.GELU));
        boolean tied = TIED.bool(section, preset.map(TransformerModel::tiedEmbeddings).orElse(false));
        boolean parallel = PARALLEL_BLOCKS.bool(section, preset.map(TransformerModel::parallelBlocks).orElse(false));
        TransformerModel.Experts experts = experts(preset.map(TransformerModel::experts).orElse(null),
                layers.orElse(0), ffn.orElse(1));
        Optional<AttentionFields> shape = attentionFields(preset, layers.orElse(0));
        if (badPreset || layers.isEmpty() || hidden.isEmpty() || heads.isEmpty() || ffn.isEmpty() || vocab.isEmpty()
                || shape.isEmpty()) {
            return Optional.empty();
        }
        AttentionFields a = shape.get();
        int headDim;
        if (a.latent() != null) {
            headDim = a.latent().qkHeadDim();
            if (given(section, "kvHeads") && !kvHeads.equals(heads)) {
                section.error("kvHeads", "found " + kvHeads.orElse(0) + ", but latent attention expands keys and values "
                        + "for every head: expected model.heads (" + heads.get() + ") or leave it out");
                return Optional.empty();
            }
            kvHeads = heads;
        } else if (a.headDim().isPresent()) {
            headDim = a.headDim().get();
        } else if (hidden.get() % heads.get() != 0) {
            section.error("heads", "found " + heads.get() + ", expected a divisor of model.hidden (" + hidden.get()
                    + "), or give model.headDim");
            return Optional.empty();
        } else {
            headDim = hidden.get() / heads.get();
        }
        if (kvHeads.isEmpty() || heads.get() % kvHeads.get() != 0) {
            section.error("kvHeads", "found " + kvHeads.orElse(0) + ", expected a divisor of model.heads (" + heads.get()
                    + ")");
            return Optional.empty();
        }
        if (parallel && (experts != null || a.latent() != null)) {
            section.error("parallelBlocks", "found true, but parallel attention and MLP blocks are modelled for dense "
                    + "models with grouped-query attention only; expected false with "
                    + (experts != null ? "model.experts" : "model.latentAttention"));
            return Optional.empty();
        }
        return Optional.of(new TransformerModel(name, layers.get(), hidden.get(), heads.get(), kvHeads.get(),
                ffn.get(), ffnKind, vocab.get(), tied, experts,
                new AttentionShape(headDim, a.position(), a.window(), a.latent()), parallel));
    }

    /**
     * The attention-shape fields as read, before the head dimension can be settled.
     *
     * @param headDim  given, or the preset's own; empty: hidden / heads (or latent attention's)
     * @param position rotary or learned positions
     * @param window   the sliding window, or null
     * @param latent   latent attention, or null
     */
    private record AttentionFields(Optional<Integer> headDim, PositionEmbedding position, SlidingWindow window,
                                   LatentAttention latent) {
    }

    /**
     * The attention-shape fields: {@code headDim}, {@code positionEmbedding} ({@code rotary} or
     * {@code learned}), {@code slidingWindow} ({@code tokens}, and {@code every} and {@code
     * first} or {@code pattern}) and {@code latentAttention} ({@code qLoraRank}, {@code kvLoraRank}, {@code qkNopeHeadDim},
     * {@code qkRopeHeadDim}, {@code vHeadDim}). A preset's values are the defaults, its head
     * dimension only where it is not its hidden / heads (so overriding a preset's heads or
     * hidden keeps d = hidden / heads for the presets defined that way). Empty after reporting
     * an error.
     */
    private Optional<AttentionFields> attentionFields(Optional<TransformerModel> preset, int layers) {
        Optional<AttentionShape> fromPreset = preset.map(TransformerModel::attentionShape);
        boolean ok = true;
        PositionEmbedding position = POSITION.choice(section, fromPreset.map(AttentionShape::position)
                .orElse(PositionEmbedding.ROTARY));
        Optional<Integer> headDim = HEAD_DIM.optionalInteger(section);
        ok &= !given(section, "headDim") || headDim.isPresent();
        if (headDim.isEmpty()) {
            headDim = preset.filter(m -> m.latentAttention() == null
                    && (long) m.heads() * m.headDim() != m.hidden()).map(TransformerModel::headDim);
        }

        SlidingWindow window = fromPreset.map(AttentionShape::window).orElse(null);
        if (given(section, "slidingWindow")) {
            Optional<SlidingWindow> read = slidingWindow(window, layers);
            ok &= read.isPresent();
            window = read.orElse(null);
        }

        LatentAttention latent = fromPreset.map(AttentionShape::latent).orElse(null);
        if (given(section, "latentAttention")) {
            Section m = LATENT.section(section);
            LatentAttention p = latent;
            Optional<Integer> q = latentDim(m, Q_LORA, p == null ? null : p.qLoraRank());
            Optional<Integer> kv = latentDim(m, KV_LORA, p == null ? null : p.kvLoraRank());
            Optional<Integer> nope = latentDim(m, QK_NOPE, p == null ? null : p.qkNopeHeadDim());
            Optional<Integer> rope = latentDim(m, QK_ROPE, p == null ? null : p.qkRopeHeadDim());
            Optional<Integer> v = latentDim(m, V_HEAD, p == null ? null : p.vHeadDim());
            m.finish();
            if (q.isEmpty() || kv.isEmpty() || nope.isEmpty() || rope.isEmpty() || v.isEmpty()) {
                return Optional.empty();
            }
            latent = new LatentAttention(q.get(), kv.get(), nope.get(), rope.get(), v.get());
        }
        if (latent != null && given(section, "headDim")) {
            section.error("headDim", "latent attention's query/key head dimension is qkNopeHeadDim + qkRopeHeadDim ("
                    + latent.qkHeadDim() + "); leave model.headDim out");
            ok = false;
        }
        if (latent != null && position != PositionEmbedding.ROTARY) {
            section.error("positionEmbedding", "found 'learned', but latent attention carries positions in its rotary "
                    + "head dimensions (qkRopeHeadDim): expected rotary");
            ok = false;
        }
        return ok ? Optional.of(new AttentionFields(headDim, position, window, latent)) : Optional.empty();
    }

    /**
     * {@code model.slidingWindow}: {@code tokens}, and either the periodic form {@code every} and
     * {@code first} or a {@code pattern} of {@code local} and {@code global} layers repeated from
     * layer 0. Fields left out keep the preset's window (its pattern, or its period and first
     * local layer under {@code every} or {@code first}). Empty after reporting an error.
     */
    private Optional<SlidingWindow> slidingWindow(SlidingWindow preset, int layers) {
        Section w = SLIDING_WINDOW.section(section);
        Optional<Integer> tokens = preset != null && !given(w, "tokens") ? Optional.of(preset.tokens())
                : WINDOW_TOKENS.requiredInteger(w);
        Optional<Integer> every = WINDOW_EVERY.optionalInteger(w);
        Optional<Integer> first = WINDOW_FIRST.optionalInteger(w);
        Optional<List<String>> pattern = WINDOW_PATTERN.textList(w);
        w.finish();
        boolean ok = tokens.isPresent() && (every.isPresent() || !given(w, "every"))
                && (first.isPresent() || !given(w, "first")) && (pattern.isPresent() || !given(w, "pattern"));
        if (!ok) {
            return Optional.empty();
        }
        List<Boolean> layersOfPeriod;
        if (given(w, "pattern")) {
            if (given(w, "every") || given(w, "first")) {
                w.error("pattern", "given with " + (given(w, "every") ? "every" : "first") + "; expected either "
                        + "pattern or every and first");
                return Optional.empty();
            }
            List<String> names = pattern.get();
            if (!names.contains("local")) {
                w.error("pattern", "found " + (names.isEmpty() ? "an empty list" : names)
                        + ", expected at least one local layer (leave model.slidingWindow out for full attention "
                        + "everywhere)");
                return Optional.empty();
            }
            layersOfPeriod = names.stream().map("local"::equals).toList();
        } else if (preset != null && !given(w, "every") && !given(w, "first")) {
            layersOfPeriod = preset.pattern();
        } else {
            int period = every.orElse(preset == null ? 1 : preset.period());
            int start = first.orElse(preset == null ? 0 : preset.firstLocal());
            if (start >= period) {
                w.error("first", "found " + start + ", expected less than model.slidingWindow.every (" + period
                        + "): the windowed layers are first, first + every, first + 2 every, ...");
                return Optional.empty();
            }
            layersOfPeriod = new SlidingWindow(1, period, start).pattern();
        }
        SlidingWindow window = new SlidingWindow(tokens.get(), layersOfPeriod);
        if (layers > 0 && window.localLayers(layers) == 0) {
            String field = given(w, "pattern") ? "pattern" : "first";
            w.error(field, "found no local layer below model.layers (" + layers + "): the first is layer "
                    + window.firstLocal() + "; expected one below " + layers);
            return Optional.empty();
        }
        return Optional.of(window);
    }

    /** One latent-attention dimension: required unless the preset has latent attention. */
    private static Optional<Integer> latentDim(Section m, Field field, Integer fromPreset) {
        if (fromPreset != null && !given(m, field.name())) {
            return Optional.of(fromPreset);
        }
        return field.requiredInteger(m);
    }

    /**
     * The mixture-of-experts fields: {@code experts} (routed experts; 0 or absent for a dense
     * model), {@code topK}, {@code expertFfn}, {@code sharedExperts}, {@code capacityFactor},
     * {@code denseLayers}, {@code nodeLimit}, {@code expertImbalance}. A preset's values are the defaults.
     */
    private TransformerModel.Experts experts(TransformerModel.Experts preset, int layers, int ffn) {
        int count = EXPERTS.integer(section, preset == null ? 0 : preset.count());
        // every field is checked on its own first, so a bad value is reported even for a dense model
        int topK = TOP_K.integer(section, preset == null ? 1 : preset.topK());
        int expertFfn = EXPERT_FFN.integer(section, preset == null ? ffn : preset.ffn());
        int shared = SHARED_EXPERTS.integer(section, preset == null ? 0 : preset.shared());
        double capacity = CAPACITY.number(section).orElse(preset == null ? 1.0 : preset.capacityFactor());
        int dense = DENSE_LAYERS.integer(section, preset == null ? 0 : preset.denseLayers());
        int nodeLimit = NODE_LIMIT.integer(section, preset == null ? 0 : preset.nodeLimit());
        double imbalance = IMBALANCE.number(section).orElse(preset == null ? 1.0 : preset.imbalance());
        if (count == 0) {
            for (Field f : List.of(TOP_K, EXPERT_FFN, SHARED_EXPERTS, CAPACITY, DENSE_LAYERS, NODE_LIMIT,
                    IMBALANCE)) {
                if (given(section, f.name())) {
                    section.error(f.name(), "only a mixture-of-experts model takes " + f.name() + "; give model.experts "
                            + "(the number of routed experts) too");
                }
            }
            return null;
        }
        if (topK > count) {
            section.error("topK", "found " + topK + ", expected at most model.experts (" + count + ")");
            return null;
        }
        if (layers > 0 && dense >= layers) {
            section.error("denseLayers", "found " + dense + ", expected fewer than model.layers (" + layers + ")");
            return null;
        }
        return new TransformerModel.Experts(count, topK, expertFfn, shared, capacity, dense, nodeLimit, imbalance);
    }

    private Optional<Integer> dim(Field field, boolean badPreset, Optional<Integer> fromPreset) {
        if (fromPreset.isPresent() && section.node(field.name()).isEmpty()) {
            return fromPreset;
        }
        return badPreset ? field.optionalInteger(section) : field.requiredInteger(section);
    }

    /**
     * {@code model.attention}: an implementation the device profile has tables for, or
     * {@code flash} for the profile's default fused implementation (an error where the profile
     * has none); absent, the default.
     */
    AttentionImpl attention(Optional<DeviceProfile> device) {
        AttentionImpl dflt = device.map(DeviceProfile::defaultAttention).orElse(AttentionImpl.STANDARD);
        Map<String, AttentionImpl> names = new LinkedHashMap<>();
        for (String key : ATTENTION.names()) {
            names.put(key, key.equals("flash") ? dflt : AttentionImpl.valueOf(key.toUpperCase(Locale.ROOT)));
        }
        AttentionImpl impl = section.choice(ATTENTION.name(), dflt, names);
        if (device.isPresent() && impl == AttentionImpl.STANDARD && section.text(ATTENTION.name())
                .filter(t -> t.equalsIgnoreCase("flash")).isPresent()) {
            // flash names the profile's default fused kernel: a profile without one (default
            // standard, no tables) cannot run it, and running standard instead would be silent
            section.error("attention", "found 'flash', but the " + device.get().name() + " device profile has no "
                    + "fused attention table (its default is standard); expected standard"
                    + (coveredImpls(device.get()).isEmpty() ? "" : " or one of the profile's: "
                    + coveredImpls(device.get())));
            return impl;
        }
        if (device.isPresent() && impl != AttentionImpl.STANDARD && !device.get().attention().covers(impl)) {
            section.error("attention", "found '" + impl.key() + "', but the " + device.get().name()
                    + " device profile has no table for it; expected standard or one of the profile's: "
                    + coveredImpls(device.get()));
        }
        return impl;
    }

    private static String coveredImpls(DeviceProfile device) {
        StringBuilder sb = new StringBuilder();
        for (AttentionImpl impl : AttentionImpl.values()) {
            if (device.attention().covers(impl)) {
                sb.append(sb.length() == 0 ? "" : ", ").append(impl.key());
            }
        }
        return sb.toString();
    }
}

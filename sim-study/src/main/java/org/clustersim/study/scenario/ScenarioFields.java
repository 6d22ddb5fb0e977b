package org.clustersim.study.scenario;

import static org.clustersim.study.scenario.Field.bool;
import static org.clustersim.study.scenario.Field.choice;
import static org.clustersim.study.scenario.Field.integer;
import static org.clustersim.study.scenario.Field.names;
import static org.clustersim.study.scenario.Field.number;
import static org.clustersim.study.scenario.Field.section;
import static org.clustersim.study.scenario.Field.text;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.clustersim.core.Simulation;
import org.clustersim.strategies.cost.CudaGraphs;
import org.clustersim.strategies.cost.Fp8Recipe;
import org.clustersim.strategies.cost.MoeDispatcher;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.cost.RecomputeModule;
import org.clustersim.strategies.device.AttentionImpl;
import org.clustersim.strategies.model.PositionEmbedding;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.strategies.training.AllToAllAlgorithm;
import org.clustersim.strategies.training.ContextParallel;
import org.clustersim.strategies.training.LogicalMesh;
import org.clustersim.strategies.training.Mesh;
import org.clustersim.strategies.training.XlaRemat;
import org.clustersim.strategies.training.Zero3Impl;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.TorusSpec;

/**
 * Every field of the scenario format (docs/scenario-format.md): the single definition that
 * {@link ScenarioReader} checks fields with and {@link ScenarioSchema} writes the JSON Schema
 * from. Ranges, accepted names and constant defaults live here only.
 *
 * <p>Why this class is long: it is the format's catalogue, one declaration per field; split, the
 * one definition would be scattered again.
 */
public final class ScenarioFields {
    /** Upper bound of counts (servers, replicas, sequences): 2^24. */
    static final int MAX_COUNT = 1 << 24;
    /** Consecutive steps one run may simulate: enough to reach any schedule's steady state. */
    static final int MAX_STEPS = 1000;
    private static final int BIG = Integer.MAX_VALUE;

    /** A simulated time: a number with ns, us, ms or s (any case), or start. */
    static final String TIME = "^\\s*(" + anyCase("start") + "|\\+?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?"
            + "\\s*([nNuUmM]?[sS]))\\s*$";

    private ScenarioFields() {
    }

    // ---- cluster ----
    /**
     * The TPU presets: chip generation to the figures of its slices (ICI, hosts, DCN; the shape
     * here is a placeholder, cluster.topology gives the real one).
     */
    static final Map<String, TorusSpec> TPU_PRESETS = tpuPresets();

    public static final Field CLUSTER_PRESET = choice("preset", clusterPresets(), "dgx-h100", "Server type: GPU "
            + "model, NVLink and NIC figures (gb200-nvl72, gb300-nvl72: one NVLink domain of 72 GPUs per rack, nodes "
            + "count racks; nvl72: the GB200 NVL72 rack's fabric with the HGX B200 chip and profile); "
            + String.join(", ", TPU_PRESETS.keySet()) + " build TPU slices instead (topology, slices).");
    public static final Field DEVICE_PROFILE = text("deviceProfile", "How fast the GPUs' kernels run: a bundled "
            + "profile's name (h100-sxm, h200-sxm, a100-sxm-80gb, b200) or a profile file relative to the scenario; "
            + "default: the preset GPU's bundled profile (docs/device-profiles.md).");
    public static final Field DEVICE_OVERRIDES = new Field("deviceOverrides", new Field.OpenMappingType(), null,
            "Fields laid over the device profile, in the profile's layout, e.g. {memory: {streamEfficiency: 0.36}}.");
    public static final Field NODES = integer("nodes", null, 1, MAX_COUNT, "Number of servers; default: enough "
            + "servers for the layout.");
    public static final Field GPUS_PER_NODE = integer("gpusPerNode", null, 1, 1024, "GPUs in one NVSwitch domain; "
            + "default: the preset's (8; the NVL72 racks: 72).");
    public static final Field FABRIC = choice("fabric", names("single-switch", "rail-optimized", "fat-tree"),
            fabricsElsewhere(), "single-switch", "GPU presets only: how servers are joined: one NIC per GPU on a "
            + "single switch; the DGX SuperPOD rail-optimised fabric (scalable units of 32 servers of 8 GPUs; for "
            + "NVLink domains of more GPUs, such as NVL72 racks, the SuperPOD GB200 fabric: units of 8 racks, any rack "
            + "count); or a generic fat tree. TPU tori come with the TPU presets (topology), an NVL72 rack with "
            + "preset: gb200-nvl72.");
    public static final Field OVERSUBSCRIPTION = number("oversubscription", 1.0, 1, 1024, "rail-optimized: "
            + "capacity above the leaves is divided by this ratio; fat-tree: the leaves' down:up port ratio.");
    public static final Field LEVELS = integer("levels", 2, 2, 3, "fat-tree only: switch levels.");
    public static final Field RADIX = integer("radix", 64, 4, 1024, "fat-tree only: ports per switch.");
    public static final Field NVLINK_BW = number("nvlinkBandwidthGBps", null, 1e-3, 1e6, "NVLink bandwidth per GPU "
            + "per direction, GB/s (10^9 bytes/s); default: the preset's (450 / 300 / 900).");
    public static final Field NVLINK_LAT = number("nvlinkLatencyNs", null, 0, 1e12, "Latency of one GPU-NVSwitch "
            + "hop, ns; default: the preset's (250).");
    public static final Field NIC_BW = number("nicBandwidthGBps", null, 1e-3, 1e6, "NIC line rate per direction, "
            + "GB/s; default: the preset's (50 / 25; dgx-b300 and gb300-nvl72: 100).");
    public static final Field GPU_NIC_LAT = number("gpuNicLatencyNs", null, 0, 1e12, "Latency of the GPU-NIC hop, "
            + "ns; default: the preset's (200).");
    public static final Field NIC_LAT = number("nicLatencyNs", null, 0, 1e12, "Latency of the NIC-switch hop, ns; "
            + "default: the preset's (1200).");
    /** A slice shape: two or three axis lengths joined by x. */
    static final String SHAPE = "^\\s*[1-9][0-9]{0,3}(\\s*[xX]\\s*[1-9][0-9]{0,3}){1,2}\\s*$";
    public static final Field TOPOLOGY = text("topology", null, SHAPE, "TPU presets only, and required with them: "
            + "the slice shape in chips, axis x first: AxBxC (tpu-v4, tpu-v5p, tpu7x) or AxB (tpu-v5e, tpu-v6e; at most "
            + "16x16).");
    public static final Field SLICES = integer("slices", 1, 1, 1 << 12, "TPU presets only: slices joined by the "
            + "data-center network (DCN), MaxText's multi-slice.");
    public static final Field CHIPS_PER_HOST = integer("chipsPerHost", null, 1, 64, "TPU presets only: chips sharing "
            + "one host and its DCN NICs; default: the preset's (" + perPreset(t -> t.hostChips()) + ").");
    public static final Field ICI_BW = number("iciBandwidthGBps", null, 1e-3, 1e6, "TPU presets only: one ICI link, "
            + "one direction, GB/s; default: the preset's (" + perPreset(t -> t.chipLinkBytesPerS() / 1e9) + "; on tpu7x each of a chip's two "
            + "devices takes half).");
    public static final Field DCN_BW = number("dcnBandwidthGBpsPerChip", null, 1e-3, 1e6, "TPU presets only: DCN "
            + "bandwidth per chip, one direction, GB/s (a host has chipsPerHost times this); default: the preset's ("
            + perPreset(t -> t.dcnBytesPerS() / t.hostChips() / 1e9) + ").");
    public static final Field HOST_LINK_BW = number("hostLinkGBps", null, 1e-3, 1e6, "GPU presets only: bandwidth "
            + "of each host link (CPU-GPU) per direction, GB/s, shared by the GPUs on it; what activation offload "
            + "copies over (training.cpuOffloadLayers); default: the preset's (PCIe Gen5 x16 55 on dgx-h100, "
            + "dgx-h200, dgx-b200, dgx-b300; Gen4 25 on dgx-a100; Grace NVLink-C2C 450 for two GPUs on nvl72, "
            + "gb200-nvl72, gb300-nvl72).");
    public static final Field HOST_MEMORY = number("hostMemoryGB", null, 1e-3, 1e9, "GPU presets only: host memory "
            + "per GPU, GB, that offloaded activations must fit in; default: the preset's (250 on dgx-h100 and "
            + "dgx-h200, 500 on dgx-b200, 250 on dgx-b300, 125 on dgx-a100, 240 on the NVL72 racks).");
    public static final Field CLUSTER = section("cluster", "The servers, their GPUs and the fabric joining them; "
            + "or, with a TPU preset, TPU slices.", List.of(), CLUSTER_PRESET, DEVICE_PROFILE, DEVICE_OVERRIDES,
            NODES, GPUS_PER_NODE, FABRIC, OVERSUBSCRIPTION, LEVELS, RADIX, NVLINK_BW, NVLINK_LAT, NIC_BW, GPU_NIC_LAT,
            NIC_LAT, TOPOLOGY, SLICES, CHIPS_PER_HOST, ICI_BW, DCN_BW, HOST_LINK_BW, HOST_MEMORY);
    /** The cluster fields of GPU presets, which a TPU cluster does not take. */
    static final List<Field> GPU_CLUSTER_ONLY = List.of(NODES, GPUS_PER_NODE, FABRIC, OVERSUBSCRIPTION, LEVELS,
            RADIX, NVLINK_BW, NVLINK_LAT, NIC_BW, GPU_NIC_LAT, NIC_LAT, HOST_LINK_BW, HOST_MEMORY);
    /** The cluster fields of TPU presets, which a GPU cluster does not take. */
    static final List<Field> TPU_CLUSTER_ONLY = List.of(TOPOLOGY, SLICES, CHIPS_PER_HOST, ICI_BW, DCN_BW);

    // ---- model ----
    public static final Field MODEL_PRESET = choice("preset", TransformerModel.presets(), null, "Published model "
            + "shapes (GPT-3 and the Megatron SC'21 family, Llama 3, Mixtral 8x7B, a DeepSeek-V3-like MoE, "
            + "GPT-OSS 120B, Gemma 3 27B); fields given next to a preset override it.");
    public static final Field MODEL_NAME = text("name", "Label in outputs; default: the preset's name or custom.");
    public static final Field LAYERS = integer("layers", null, 1, BIG, "Transformer layers (required without "
            + "preset).");
    public static final Field HIDDEN = integer("hidden", null, 1, BIG, "Hidden size h (required without preset).");
    public static final Field HEADS = integer("heads", null, 1, BIG, "Attention (query) heads; must divide hidden "
            + "unless headDim or latentAttention is given (required without preset).");
    public static final Field FFN = integer("ffn", null, 1, BIG, "MLP inner size; default: the preset's, else "
            + "4 x hidden.");
    public static final Field VOCAB = integer("vocab", null, 1, BIG, "Vocabulary size (required without preset).");
    public static final Field KV_HEADS = integer("kvHeads", null, 1, 1 << 16, "Key/value heads (grouped-query "
            + "attention), dividing heads; default: heads.");
    public static final Field FFN_KIND = choice("ffnKind", Map.of("gelu", TransformerModel.FfnKind.GELU, "swiglu",
            TransformerModel.FfnKind.SWIGLU), null, "Two-matrix GELU or three-matrix SwiGLU MLP; default: the "
            + "preset's, else gelu.");
    public static final Field TIED = bool("tiedEmbeddings", null, "The output projection shares the word "
            + "embeddings; default: the preset's, else false.");
    public static final Field EXPERTS = integer("experts", null, 0, 1 << 16, "Routed experts per MoE layer; 0 is a "
            + "dense model; default: the preset's, else 0.");
    public static final Field TOP_K = integer("topK", null, 1, 1 << 16, "Experts each token is sent to (at most "
            + "experts); default: the preset's, else 1.");
    public static final Field EXPERT_FFN = integer("expertFfn", null, 1, BIG, "Inner size of one expert; default: "
            + "the preset's, else ffn.");
    public static final Field SHARED_EXPERTS = integer("sharedExperts", null, 0, 1 << 10, "Experts every token "
            + "passes through (DeepSeekMoE); default: the preset's, else 0.");
    public static final Field CAPACITY = number("capacityFactor", null, 0.01, 1000, "Tokens each expert processes "
            + "relative to a balanced share (1: dropless and balanced); default: the preset's, else 1.");
    public static final Field DENSE_LAYERS = integer("denseLayers", null, 0, 1 << 20, "Leading layers with a dense "
            + "MLP (DeepSeek-V3: 3), fewer than layers; default: the preset's, else 0.");
    public static final Field NODE_LIMIT = integer("nodeLimit", null, 0, 1 << 16, "Node-limited routing: a token's "
            + "experts lie on at most this many servers (0: no limit); default: the preset's, else 0.");
    public static final Field IMBALANCE = number("expertImbalance", null, 1, 1000, "Routed tokens on the busiest GPU "
            + "of an EP group over the mean (1: balanced); default: the preset's, else 1.");
    public static final Field POSITION = choice("positionEmbedding", Map.of("rotary", PositionEmbedding.ROTARY,
            "learned", PositionEmbedding.LEARNED), null, "Rotary embeddings in every layer, or learned absolute "
            + "positions added once; default: the preset's, else rotary.");
    public static final Field HEAD_DIM = integer("headDim", null, 1, 1 << 16, "Query/key/value head dimension; "
            + "default: hidden / heads, or the preset's own. Not with latentAttention.");
    public static final Field WINDOW_TOKENS = integer("tokens", null, 1, 1 << 30, "Keys each query attends to at "
            + "most (required unless the preset has a window).");
    public static final Field WINDOW_EVERY = integer("every", null, 1, 1 << 20, "Period of the windowed layers; "
            + "default 1 (every layer).");
    public static final Field WINDOW_FIRST = integer("first", null, 0, 1 << 20, "First windowed layer (0-based), "
            + "less than every; default 0.");
    public static final Field WINDOW_PATTERN = new Field("pattern", new Field.TextListType("^(local|global)$",
            "local or global"), null, "The layers of one period, local (windowed) or global, repeated from layer 0: "
            + "Gemma 3 [local, local, local, local, local, global]; not with every or first.");
    public static final Field SLIDING_WINDOW = section("slidingWindow", "Sliding-window attention in layers first, "
            + "first + every, ..., or in the local layers of a repeated pattern: each query attends causally to at "
            + "most tokens keys.", List.of(), WINDOW_TOKENS, WINDOW_EVERY, WINDOW_FIRST, WINDOW_PATTERN);
    public static final Field PARALLEL_BLOCKS = bool("parallelBlocks", null, "Attention and MLP side by side on one "
            + "norm's output, y = x + Attn(LN(x)) + MLP(LN(x)) (GPT-J, PaLM): one norm per layer and one tensor-parallel "
            + "reduction of both branches; dense models without latent attention; default: the preset's, else false.");
    public static final Field Q_LORA = integer("qLoraRank", null, 1, 1 << 20, "Query down-projection rank.");
    public static final Field KV_LORA = integer("kvLoraRank", null, 1, 1 << 20, "Key/value down-projection rank.");
    public static final Field QK_NOPE = integer("qkNopeHeadDim", null, 1, 1 << 20, "Query/key head dimension "
            + "without rotary embedding.");
    public static final Field QK_ROPE = integer("qkRopeHeadDim", null, 1, 1 << 20, "Query/key head dimension with "
            + "rotary embedding.");
    public static final Field V_HEAD = integer("vHeadDim", null, 1, 1 << 20, "Value head dimension.");
    public static final Field LATENT = section("latentAttention", "Multi-head latent attention (DeepSeek-V2/V3; "
            + "names as in their Hugging Face configs); all five required unless the preset has them.", List.of(),
            Q_LORA, KV_LORA, QK_NOPE, QK_ROPE, V_HEAD);
    public static final Field ATTENTION = choice("attention", attentionNames(), null, "The attention core's "
            + "implementation, timed from the device profile's tables; flash is the profile's default fused kernel, "
            + "standard materialises the score matrix; default: the profile's (H100, H200, B200: cudnn; A100: flash2; "
            + "TPU: splash). An implementation, or flash, that the profile has no table for is an error.");
    public static final Field MODEL = section("model", "The transformer: a preset, or all of layers, hidden, heads "
            + "and vocab.", List.of(List.of("preset"), List.of("layers", "hidden", "heads", "vocab")), MODEL_PRESET,
            MODEL_NAME, LAYERS, HIDDEN, HEADS, FFN, VOCAB, KV_HEADS, HEAD_DIM, POSITION, SLIDING_WINDOW, LATENT,
            FFN_KIND, TIED, PARALLEL_BLOCKS, ATTENTION, EXPERTS, TOP_K, EXPERT_FFN, SHARED_EXPERTS, CAPACITY, DENSE_LAYERS, IMBALANCE,
            NODE_LIMIT);

    // ---- parallelism ----
    public static final Field PP = integer("pp", 1, 1, 4096, "Pipeline ranks; the schedule's stages must divide "
            + "model.layers unless layersPerStage is given.");
    public static final Field TP = integer("tp", 1, 1, 1024, "Tensor parallelism inside a server.");
    public static final Field DP = integer("dp", 1, 1, MAX_COUNT, "Data-parallel replicas.");
    public static final Field CP = integer("cp", 1, 1, 1024, "Context parallelism: each sequence split over cp GPUs; "
            + "must divide training.seqLen.");
    public static final Field EP = integer("ep", 1, 1, 4096, "Expert parallelism, folded over each stage's tp x cp "
            + "x dp GPUs (etp x ep must divide them, and ep model.experts). Not with zero: 3.");
    public static final Field ETP = integer("etp", null, 1, 1024, "Expert tensor parallelism, dividing tp x cp; "
            + "default: tp. Needs a model with experts; not with zero: 3.");
    public static final Field ALL_TO_ALL = choice("allToAll", AllToAllAlgorithm.byId(), "auto", "How each MoE "
            + "layer's token all-to-alls are sent over an EP group: auto, pxn (NCCL's PXN), direct, or node-limited "
            + "(needs model.nodeLimit). Needs ep > 1 unless auto.");
    public static final Field MOE_DISPATCHER = choice("moeDispatcher", MoeDispatcher.byId(), "alltoall", "Megatron-core's "
            + "MoE token dispatcher: alltoall (counts all-gathered and read back by the host, tokens permuted, "
            + "all-to-all, chunks sorted by local expert), deepep (flex dispatcher on DeepEP: tokens permuted after "
            + "the exchange) or hybridep (flex dispatcher on HybridEP with the permutation fused into its kernels). "
            + "Ignored without experts.");
    public static final Field ORDER = text("order", "tp-cp-pp-dp", orderPattern(), "The mesh, innermost first: any "
            + "order of tp, cp, pp and dp.");
    public static final Field CP_VARIANT = choice("cpVariant", Map.of("all-gather", ContextParallel.ALL_GATHER,
            "ring", ContextParallel.RING), "all-gather", "How CP shares keys and values: all-gathered before "
            + "attention, or ring attention.");
    public static final Field SHARD_GROUP = integer("shardGroup", null, 1, MAX_COUNT, "Hybrid sharding with zero 1..3: "
            + "states sharded over groups of this many ranks of the DP x CP group (dividing dp x cp); default: dp x cp.");
    public static final Field VP = integer("vp", 1, 1, 64, "Model chunks per rank, same as schedule.v.");
    public static final Field A2A_OVERLAP = bool("overlapMoeExpertParallelComm", false, "Megatron-core's combined "
            + "1F1B schedule overlapping one microbatch's all-to-alls with another's compute; needs ep > 1.");
    public static final Field ZERO = integer("zero", 0, 0, 3, "0: all-reduce of gradients; 1, 2: distributed "
            + "optimizer; 3: full sharding (FSDP).");
    public static final Field ZERO3_IMPL = choice("zero3Impl", Zero3Impl.byId(), Zero3Impl.DEFAULT.id(), "With "
            + "zero: 3 only: which framework shards (megatron-fsdp, fsdp2 or deepspeed).");
    public static final Field RESHARD = bool("reshardAfterForward", true, "With zero3Impl: fsdp2 only: false keeps "
            + "each block's gathered weights from its forward until its backward.");
    public static final Field GRAD_REDUCE_DTYPE = choice("gradReduceDtype", Map.of("fp32", 4, "bf16", 2, "fp16", 2),
            null, "With zero: 3 only: the type gradients are reduce-scattered in; default: the framework's.");
    public static final Field SEQUENCE_PARALLEL = bool("sequenceParallel", false, "With tp > 1: all-gather and "
            + "reduce-scatter instead of all-reduce, norms split over tp.");
    public static final Field OVERLAP_GRAD = bool("overlapGradReduce", true, "Launch gradient buckets during the "
            + "backward (false: after it).");
    public static final Field TP_COMM_OVERLAP = bool("tpCommOverlap", false, "Megatron-core's --tp-comm-overlap "
            + "(userbuffers); needs sequenceParallel when tp > 1.");
    public static final Field OVERLAP_PARAM_GATHER = bool("overlapParamGather", false, "With zero 1 or 2 and "
            + "overlapGradReduce: gather the updated weights per bucket ahead of the next step's forward.");
    public static final Field ALIGN_PARAM_GATHER = bool("alignParamGather", true, "With overlapParamGather under "
            + "the interleaved schedule: Megatron-core's align_param_gather (Megatron-LM's default): each model chunk's "
            + "gathers dispatched whole by the schedule at the same time on every pipeline rank (chunks 0 and 1 at "
            + "the schedule start); false: by the first module's forward pre-hook. Other schedules never align.");
    public static final Field OVERLAP_PARAM_GATHER_WITH_OPTIMIZER_STEP = bool("overlapParamGatherWithOptimizerStep",
            false, "With overlapParamGather and the interleaved schedule: Megatron-core's "
            + "overlap_param_gather_with_optimizer_step: the first model chunk's gather dispatched inside the optimizer "
            + "step, after that chunk's own Adam step.");
    public static final Field BUCKET = number("gradBucketMB", null, 0.001, 1e6, "Size of one gradient bucket in MB "
            + "of main gradients; default: Megatron-core's rule, max(40 M, 1 M x dp x cp) parameters.");
    public static final Field LAYERS_PER_STAGE = new Field("layersPerStage", new Field.IntegerListType(1, 100_000),
            null, "Layers of each stage in pipeline order, one entry per stage, adding up to model.layers; "
            + "default: even.");
    public static final Field ACCOUNT_EMBEDDING = bool("accountForEmbeddingInPipelineSplit", false, "Megatron-core's "
            + "account_for_embedding_in_pipeline_split: the embedding counts as one layer of the first (virtual) "
            + "stage when the layers are divided evenly, so that stage builds one transformer layer fewer; the "
            + "stages must divide the counted layers. Not with layersPerStage.");
    public static final Field ACCOUNT_LOSS = bool("accountForLossInPipelineSplit", false, "Megatron-core's "
            + "account_for_loss_in_pipeline_split: the loss (output layer) counts as one layer of the last (virtual) "
            + "stage, which builds one transformer layer fewer. Not with layersPerStage.");

    /** One degree of the JAX mesh: its field and the logical axis it sizes, inside a slice or across. */
    record MeshDegree(Field field, LogicalMesh.Axis axis, boolean ici) {
    }

    /** The largest degree of one mesh axis. */
    static final int MAX_DEGREE = 1 << 20;
    /** Every ici_* and dcn_* degree, sequence followed by its other name, context. */
    static final List<MeshDegree> MESH_DEGREES = meshDegrees();
    public static final Field MESH = section("mesh", "TPU presets only: MaxText's *_parallelism settings, each "
            + "logical axis's degree inside a slice (ici_, over ICI) and across slices (dcn_, over DCN); absent axes "
            + "are 1, one ici_ and one dcn_ axis may be -1 (what the others leave). The ici_ degrees multiply to the "
            + "chips of a slice, the dcn_ ones to cluster.slices. Not with tp, dp, pp, cp, ep, etp, zero, shardGroup "
            + "or order.", List.of(), MESH_DEGREES.stream().map(MeshDegree::field).toArray(Field[]::new));
    /** A piece of a physical torus axis: x, y or z, whole or a factor of it (x:4). */
    static final String PIECE = "^\\s*[xXyYzZcC](\\s*:\\s*[1-9][0-9]{0,3})?\\s*$";
    /** The logical axes meshMapping places: each field and its axis (sequence also as context). */
    static final Map<Field, LogicalMesh.Axis> MAPPED_AXES = mappedAxes();
    public static final Field MESH_MAPPING = section("meshMapping", "With mesh: which torus axes each ICI logical "
            + "axis takes, innermost first; each axis's pieces multiply to its degree and every physical axis is "
            + "covered exactly; default: tensor, sequence, expert, fsdp, data, pipeline each take what they can of x, "
            + "then y, then z.", List.of(), MAPPED_AXES.keySet().toArray(Field[]::new));
    public static final Field COLLECTIVE_MATMUL = bool("collectiveMatmul", true, "With mesh: tensor parallelism as "
            + "XLA's collective matmul (the all-gather in ring steps feeding chunks of the matmul, the reduce-scatter "
            + "under the next split's matmul); false: exposed all-gather and reduce-scatter around each block.");
    public static final Field DCN_PIPELINING = bool("dcnAllReducePipelining", true, "With mesh and dcn_ degrees: "
            + "XLA's --xla_tpu_enable_data_parallel_all_reduce_opt (set by MaxText's multi-slice scripts since its v5e "
            + "runs): each layer's cross-slice (DCN) gradient all-reduce runs under the next layers' backward; false: it "
            + "stays inside the layer's scanned backward iteration, and the next layer waits for the share the "
            + "iteration's last weight gradients (the attention block's) carry.");
    public static final Field PARALLELISM = section("parallelism", "How the model is split over the GPUs (or TPU "
            + "chips).", List.of(), TP, PP, DP, CP, EP, ETP, VP, ZERO, SEQUENCE_PARALLEL, OVERLAP_GRAD, TP_COMM_OVERLAP,
            OVERLAP_PARAM_GATHER, ALIGN_PARAM_GATHER, OVERLAP_PARAM_GATHER_WITH_OPTIMIZER_STEP, A2A_OVERLAP, ALL_TO_ALL, MOE_DISPATCHER, BUCKET, LAYERS_PER_STAGE, ACCOUNT_EMBEDDING, ACCOUNT_LOSS, SHARD_GROUP, CP_VARIANT, ORDER,
            ZERO3_IMPL, RESHARD, GRAD_REDUCE_DTYPE, MESH, MESH_MAPPING, COLLECTIVE_MATMUL, DCN_PIPELINING);

    // ---- schedule ----
    public static final Field KIND = choice("kind", scheduleKinds(), ScheduleKind.ONE_F_ONE_B.id(), "Pipeline "
            + "schedule.");
    public static final Field V = integer("v", null, 1, 64, "Model chunks per rank: required (>= 2) for "
            + "interleaved; zb-v and dualpipev always use 2; default: parallelism.vp.");
    public static final Field P2P = choice("p2p", Map.of("async", Boolean.FALSE, "blocking", Boolean.TRUE), "async",
            "Stage-to-stage sends overlap later compute, or the sending rank waits for them.");
    public static final Field SCHEDULE = section("schedule", "The pipeline schedule.", List.of(), KIND, V, P2P);

    // ---- training ----
    public static final Field GLOBAL_BATCH = integer("globalBatch", null, 1, MAX_COUNT, "Sequences per step; a "
            + "multiple of microBatch x dp.");
    public static final Field MICRO_BATCH = integer("microBatch", 1, 1, MAX_COUNT, "Sequences per microbatch.");
    public static final Field SEQ_LEN = integer("seqLen", 2048, 1, 1 << 22, "Tokens per sequence.");
    public static final Field PRECISION = choice("precision", Map.of("bf16", Precision.BF16, "fp16", Precision.FP16,
            "fp8", Precision.FP8, "int8", Precision.INT8, "nvfp4", Precision.NVFP4), "bf16", "Matrix-multiply "
            + "precision; fp8 needs fp8 units (H100, H200, B200, tpu7x); int8 is MaxText's AQT int8 training on TPUs "
            + "with int8 MXUs (tpu-v4, tpu-v5e, tpu-v5p, tpu-v6e); nvfp4 is NVIDIA's NVFP4 recipe (Transformer "
            + "Engine's NVFP4BlockScaling) and needs a device profile with a gemm.nvfp4 surface (Blackwell).");
    public static final Field RECOMPUTE = choice("recompute", Map.of("none", Scenario.Recompute.NONE, "selective",
            Scenario.Recompute.SELECTIVE, "full", Scenario.Recompute.FULL), "none", "Activation recomputation: full "
            + "replays each layer's forward in the backward, selective the modules of recomputeModules.");
    public static final Field FP8_RECIPE = choice("fp8Recipe", Map.of("delayed", Fp8Recipe.DELAYED, "current",
            Fp8Recipe.CURRENT, "blockwise", Fp8Recipe.BLOCKWISE, "mxfp8", Fp8Recipe.MXFP8), "delayed", "With "
            + "precision: fp8: how tensors are scaled; mxfp8 (one E8M0 scale per 32 elements, Transformer Engine's "
            + "MXFP8BlockScaling) needs Blackwell's block-scaled tensor cores (a device profile with peakTflops.fp4).");
    public static final Field GRAD_FUSION = bool("gradAccumulationFusion", true, "Weight-gradient GEMMs add into "
            + "the fp32 main gradient in their epilogue.");
    public static final Field FP8_GATHER = bool("fp8ParamGather", false, "With precision: fp8 or nvfp4: ZeRO's "
            + "weight all-gathers move the weights as the recipe keeps them (Megatron-core's --fp8-param-gather, "
            + "--fp4-param-gather): 1 byte with per-tensor or blockwise fp8; with mxfp8 the main-gradient type "
            + "(gathered through the gradient buffer); half a byte with nvfp4.");
    public static final Field BF16_AT_START = integer("bf16LayersAtStart", 0, 0, MAX_COUNT, "With precision: fp8 "
            + "or nvfp4: the first layers kept in bf16 (Megatron-core's --first-last-layers-bf16 with "
            + "--num-layers-at-start-in-bf16).");
    public static final Field BF16_AT_END = integer("bf16LayersAtEnd", 0, 0, MAX_COUNT, "With precision: fp8 "
            + "or nvfp4: the last layers kept in bf16 (--num-layers-at-end-in-bf16).");
    public static final Field MAIN_GRAD = choice("mainGradDtype", Map.of("fp32", 4, "bf16", 2, "fp16", 2), "fp32",
            "The type gradients are accumulated and reduced in.");
    public static final Field ADAM_MOMENTS = choice("adamMomentDtype", Map.of("fp32", 4, "bf16", 2), "fp32",
            "Adam's two moments (Megatron-core's precision-aware optimizer).");
    public static final Field RECOMPUTE_MODULES = new Field("recomputeModules", new Field.NameListType(
            supportedModules()), null, "With recompute: selective only: Megatron-core's --recompute-modules, each "
            + "once; default: [core_attn].");
    public static final Field REMAT = choice("remat", rematPolicies(), null, "MaxText's remat policy: what the "
            + "backward recomputes and, on a TPU mesh, what XLA keeps in HBM: full keeps only layer inputs; minimal "
            + "every weight matmul's output (minimal_with_context also the attention output); "
            + "save_dot_with_context_except_mlp, save_dot_except_mlpwi, save_dot_except_mlp, save_qkv_proj, "
            + "save_out_proj keep those tensors; qkv_proj_offloaded and minimal_offloaded move q, k, v (or every "
            + "matmul output) to host memory; none keeps everything. Not with recompute or recomputeModules.");
    /** Where {@code custom} puts a tensor: kept in HBM, moved to host memory, or recomputed. */
    enum TensorPlace { DEVICE, OFFLOAD, REMAT }
    /** {@code rematTensors}' fields, one per tensor name of {@link XlaRemat.Tensor}. */
    static final Map<Field, XlaRemat.Tensor> REMAT_TENSOR_FIELDS = rematTensorFields();
    public static final Field REMAT_TENSORS = section("rematTensors", "With remat: custom: where each of a layer's "
            + "named tensors goes (MaxText's per-tensor settings): device (kept in HBM), offload (pinned host memory) "
            + "or remat (recomputed, the default; decoder_layer_input, the layer input, defaults to device and cannot "
            + "be recomputed); mlpwi stands for mlpwi_0 and mlpwi_1.", List.of(),
            REMAT_TENSOR_FIELDS.keySet().toArray(Field[]::new));
    public static final Field CPU_OFFLOAD_LAYERS = integer("cpuOffloadLayers", 0, 0, BIG, "Megatron-core's "
            + "cpu_offloading_num_layers with cpu_offloading on and weights kept (Megatron-Bridge's "
            + "--activation_offload_layers): the saved activations of the first N layers are copied to host memory "
            + "in the forward and back ahead of their backward, on a copy-engine stream over the host link "
            + "(cluster.hostLinkGBps); fewer than the layers, pp 1, no recompute.");
    public static final Field CUDA_GRAPHS = choice("cudaGraphs", Map.of("none", CudaGraphs.NONE, "per-layer",
            CudaGraphs.PER_LAYER, "full-step", CudaGraphs.FULL_STEP), "none", "Kernels replayed from CUDA graphs: "
            + "none (every kernel launched by the host), per-layer (each layer's forward and backward, Megatron-core's "
            + "cuda_graph_impl local or transformer_engine), full-step (cuda_graph_scope full_iteration: the whole "
            + "step with the optimizer). A replayed kernel pays the device's per-node gap, never the host's launch.");
    public static final Field TRAINING = section("training", "Batch, sequence, precision and recomputation.",
            List.of(List.of("globalBatch")), GLOBAL_BATCH, MICRO_BATCH, SEQ_LEN, PRECISION, RECOMPUTE, FP8_RECIPE,
            GRAD_FUSION, FP8_GATHER, BF16_AT_START, BF16_AT_END, MAIN_GRAD, ADAM_MOMENTS, RECOMPUTE_MODULES, REMAT,
            REMAT_TENSORS, CPU_OFFLOAD_LAYERS, CUDA_GRAPHS);

    // ---- network ----
    public static final Field FIDELITY = choice("fidelity", Map.of("analytical", Simulation.Fidelity.ANALYTICAL,
            "flow", Simulation.Fidelity.FLOW), "flow", "flow: flows share every link max-min fairly; analytical: "
            + "every transfer runs alone at its route's bottleneck bandwidth.");
    public static final Field ROUTING = choice("routing", Map.of("ecmp", Simulation.Routing.ECMP, "adaptive",
            Simulation.Routing.ADAPTIVE), "ecmp", "A static seeded hash per flow, or the least-loaded path when the "
            + "flow starts.");
    public static final Field NETWORK = section("network", "How transfers share the fabric.", List.of(), FIDELITY,
            ROUTING);

    // ---- faults ----
    public static final Field AT = text("at", "start", TIME, "When the fault starts: start, or a simulated time "
            + "such as 250us, 15ms, 2.5s.");
    public static final Field FOR = text("for", "rest", "^\\s*" + anyCase("rest") + "\\s*$|" + TIME, "How long it "
            + "lasts: rest (to the end of the run) or a time.");
    public static final Field STATE = choice("state", names("down", "degraded"), "down", "down carries nothing and "
            + "flows re-route; degraded keeps a fraction.");
    public static final Field FRACTION = number("fraction", null, 0, 1, "degraded only: remaining fraction of "
            + "capacity, above 0; default 0.5.");
    public static final Field EXTRA_LATENCY = number("extraLatencyUs", 0.0, 0, 1e9, "Latency added to each link "
            + "hit, us.");
    public static final Field SPEED = number("speed", 0.8, 1e-3, 1, "Relative compute speed of the GPU.");
    public static final Field FAULTS = new Field("faults", new Field.VariantListType(faultVariants()), null,
            "Faults, each naming exactly one target: link, switch, nic or gpu.");

    // ---- output ----
    public static final Field TRACE = text("trace", "Trace file, relative to the working directory; default: "
            + "traces/<name>.json; --trace overrides.");
    public static final Field SUMMARY = text("summary", "JSON summary file; --summary overrides.");
    public static final Field LINK_COUNTERS = bool("linkCounters", false, "A throughput counter track per link that "
            + "carried traffic in the trace.");
    public static final Field OUTPUT = section("output", "Files written by run.", List.of(), TRACE, SUMMARY,
            LINK_COUNTERS);

    // ---- simulation ----
    public static final Field REPLICAS = choice("replicas", Map.of("all", Boolean.TRUE, "one", Boolean.FALSE), "all",
            "Simulate every data-parallel replica, or one standing for all.");
    public static final Field ALLOW_OOM = bool("allowOom", false, "Simulate a layout whose peak memory exceeds the "
            + "GPU's HBM anyway.");
    public static final Field INTERFERENCE = bool("interference", true, "Communication kernels take their SMs and "
            + "HBM share from the compute beside them.");
    public static final Field STEPS = integer("steps", 1, 1, MAX_STEPS, "Training steps simulated back to back.");
    public static final Field KERNEL = choice("kernel", Map.of("dsol", Simulation.Kernel.DSOL, "heap",
            Simulation.Kernel.HEAP), "dsol", "The discrete-event kernel: DSOL, or the project's heap kernel (about "
            + "as fast); the result is the same on either.");
    public static final Field SIMULATION = section("simulation", "How the run is simulated.", List.of(), REPLICAS,
            ALLOW_OOM, INTERFERENCE, STEPS, KERNEL);

    public static final Field NAME = text("name", "Scenario name; default: the file name without extension.");

    /** The whole file. */
    public static final Field ROOT = section("", "A clustersim scenario: one training step (or several) to "
            + "simulate. See docs/scenario-format.md.", List.of(List.of("model", "training")), NAME, CLUSTER, MODEL,
            PARALLELISM, SCHEDULE, TRAINING, NETWORK, FAULTS, OUTPUT, SIMULATION);

    private static Map<String, TorusSpec> tpuPresets() {
        Map<String, TorusSpec> m = new LinkedHashMap<>();
        m.put("tpu-v4", TorusSpec.v4(4, 4, 4));
        m.put("tpu-v5p", TorusSpec.v5p(4, 4, 4));
        m.put("tpu-v5e", TorusSpec.v5e(16, 16));
        m.put("tpu-v6e", TorusSpec.v6e(16, 16));
        m.put("tpu7x", TorusSpec.tpu7x(4, 4, 4));
        return m;
    }

    /** The GPU presets and the TPU ones, each name standing for itself. */
    private static Map<String, String> clusterPresets() {
        List<String> all = new ArrayList<>(SwitchedClusterSpec.presetNames());
        all.addAll(TPU_PRESETS.keySet());
        return names(all.toArray(String[]::new));
    }

    /** Fabric names that belong to other fields, with where. */
    private static Map<String, String> fabricsElsewhere() {
        String tori = "TPU tori come with the TPU presets (cluster.preset: " + String.join(", ", TPU_PRESETS.keySet())
                + ", with cluster.topology)";
        return Map.of("torus-2d", tori, "torus-3d", tori, "torus", tori, "nvl72", "an NVL72 rack is a preset "
                + "(cluster.preset: nvl72, gb200-nvl72 or gb300-nvl72), joined by any of these fabrics");
    }

    /** A figure of each TPU preset, for a default's description: "tpu-v4 4, tpu-v5p 4, ...". */
    private static String perPreset(java.util.function.Function<TorusSpec, Number> figure) {
        List<String> out = new ArrayList<>();
        TPU_PRESETS.forEach((name, t) -> {
            double v = figure.apply(t).doubleValue();
            out.add(name + " " + (v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v)));
        });
        return String.join(", ", out);
    }

    private static List<MeshDegree> meshDegrees() {
        List<MeshDegree> out = new ArrayList<>();
        for (boolean ici : List.of(true, false)) {
            String prefix = ici ? "ici_" : "dcn_";
            String where = ici ? "inside a slice, over ICI" : "across slices, over DCN";
            for (LogicalMesh.Axis a : LogicalMesh.Axis.values()) {
                out.add(new MeshDegree(new Field(prefix + a.id(), new Field.DegreeType(MAX_DEGREE), 1, "MaxText's "
                        + prefix + a.id() + "_parallelism: the " + a.id() + " axis's degree " + where + "; -1: what "
                        + "the other " + prefix + " axes leave."), a, ici));
                if (a == LogicalMesh.Axis.SEQUENCE) {
                    out.add(new MeshDegree(new Field(prefix + "context", new Field.DegreeType(MAX_DEGREE), 1,
                            "Read as " + prefix + "sequence (MaxText's " + prefix + "context_parallelism "
                            + "splits sequences the same way here); give one of them."), a, ici));
                }
            }
        }
        return out;
    }

    private static Map<Field, LogicalMesh.Axis> mappedAxes() {
        Field.TextListType pieces = new Field.TextListType(PIECE, "a physical axis x, y or z (c: the core "
                + "axis of a tpu7x chip's two devices), or a factor of one "
                + "such as x:4");
        Map<Field, LogicalMesh.Axis> out = new LinkedHashMap<>();
        for (LogicalMesh.Axis a : LogicalMesh.Axis.values()) {
            out.put(new Field(a.id(), pieces, null, "The physical axes (x, y, z) or factors of them (x:4) the " + a.id()
                    + " axis takes, innermost first."), a);
            if (a == LogicalMesh.Axis.SEQUENCE) {
                out.put(new Field("context", pieces, null, "Another name for sequence; give one of them."), a);
            }
        }
        return out;
    }

    /**
     * MaxText's remat policies (src/maxtext/layers/decoders.py, {@code get_remat_policy}, at
     * AI-Hypercomputer/maxtext@e591f30c) as the recomputation the backward replays and the
     * tensors XLA keeps ({@link XlaRemat}; TpuSectionReader#remat).
     */
    private static Map<String, TpuSectionReader.Remat> rematPolicies() {
        Map<String, TpuSectionReader.Remat> policies = new LinkedHashMap<>();
        Set<RecomputeModule> attn = Set.of(RecomputeModule.CORE_ATTN);
        Set<RecomputeModule> mlpAndAttn = Set.of(RecomputeModule.CORE_ATTN, RecomputeModule.MLP);
        Set<RecomputeModule> qkvOnly = Set.of(RecomputeModule.CORE_ATTN, RecomputeModule.MLP, RecomputeModule.LAYERNORM);
        policies.put("full", remat(Scenario.Recompute.FULL, Set.of(), "full"));
        // every dot output but the attention's own: the attention core replayed
        policies.put("minimal", remat(Scenario.Recompute.SELECTIVE, attn, "minimal"));
        // every dot output and the attention output: only elementwise work is replayed (not costed)
        policies.put("minimal_with_context", remat(Scenario.Recompute.NONE, Set.of(), "minimal_with_context"));
        policies.put("save_dot_with_context_except_mlp", remat(Scenario.Recompute.SELECTIVE,
                Set.of(RecomputeModule.MLP), "save_dot_with_context_except_mlp"));
        // mlpwo's output kept, its input (the MLP's intermediates) replayed: costed as the MLP recomputed
        policies.put("save_dot_except_mlpwi", remat(Scenario.Recompute.SELECTIVE, mlpAndAttn, "save_dot_except_mlpwi"));
        policies.put("save_dot_except_mlp", remat(Scenario.Recompute.SELECTIVE, mlpAndAttn, "save_dot_except_mlp"));
        policies.put("save_qkv_proj", remat(Scenario.Recompute.SELECTIVE, qkvOnly, "save_qkv_proj"));
        // the same replay as save_qkv_proj / minimal; the kept tensors go to host memory
        policies.put("qkv_proj_offloaded", remat(Scenario.Recompute.SELECTIVE, qkvOnly, "qkv_proj_offloaded"));
        policies.put("minimal_offloaded", remat(Scenario.Recompute.SELECTIVE, attn, "minimal_offloaded"));
        // only out_proj kept: everything else replayed, costed as full recomputation (the out
        // projection's replay, one of the layer's four attention GEMMs, is counted though not run)
        policies.put("save_out_proj", remat(Scenario.Recompute.FULL, Set.of(), "save_out_proj"));
        policies.put("none", remat(Scenario.Recompute.NONE, Set.of(), "none"));
        // the tensors' places come from rematTensors (TpuSectionReader#remat)
        policies.put("custom", new TpuSectionReader.Remat(Scenario.Recompute.FULL, Set.of(), null));
        return policies;
    }

    private static Map<Field, XlaRemat.Tensor> rematTensorFields() {
        Map<Field, XlaRemat.Tensor> m = new LinkedHashMap<>();
        Map<String, TensorPlace> places = new LinkedHashMap<>();
        places.put("device", TensorPlace.DEVICE);
        places.put("offload", TensorPlace.OFFLOAD);
        places.put("remat", TensorPlace.REMAT);
        for (XlaRemat.Tensor t : XlaRemat.Tensor.values()) {
            boolean input = t == XlaRemat.Tensor.DECODER_LAYER_INPUT;
            m.put(choice(t.id(), input ? Map.of("device", TensorPlace.DEVICE, "offload", TensorPlace.OFFLOAD) : places,
                    input ? "device" : "remat", input ? "The layer input (the scan carry): device or offload."
                            : "Where " + t.id() + " goes: device, offload or remat."), t);
        }
        return m;
    }

    private static TpuSectionReader.Remat remat(Scenario.Recompute recompute, Set<RecomputeModule> modules,
                                                String name) {
        return new TpuSectionReader.Remat(recompute, modules, XlaRemat.named(name));
    }

    /** The targets of a fault and the fields that go with each. */
    private static Map<String, Field.MappingType> faultVariants() {
        Map<String, Field.MappingType> m = new LinkedHashMap<>();
        List<Field> targets = List.of(
                text("link", "A directed link src->dst, or a cable a<->b (both directions); "
                        + "clustersim topology SCENARIO --links lists them."),
                text("switch", "A scale-out switch (su0.leaf2, spine5) or a server's NVSwitch (node3.nvswitch)."),
                text("nic", "A NIC (node3.nic5): its links to the GPU and to the fabric."),
                text("gpu", "A GPU (node3.gpu5) that runs slow: a straggler."));
        for (Field target : targets) {
            List<Field> fields = new ArrayList<>(List.of(target, AT, FOR));
            fields.addAll(target.name().equals("gpu") ? List.of(SPEED) : List.of(STATE, FRACTION, EXTRA_LATENCY));
            m.put(target.name(), new Field.MappingType(fields, List.of(List.of(target.name()))));
        }
        return m;
    }

    private static Map<String, AttentionImpl> attentionNames() {
        Map<String, AttentionImpl> names = new LinkedHashMap<>();
        for (AttentionImpl impl : AttentionImpl.values()) {
            names.put(impl.key(), impl);
        }
        // flash: the profile's default fused kernel, resolved by the reader
        names.put("flash", null);
        return names;
    }

    private static Map<String, ScheduleKind> scheduleKinds() {
        Map<String, ScheduleKind> kinds = new LinkedHashMap<>();
        for (ScheduleKind k : ScheduleKind.values()) {
            kinds.put(k.id(), k);
        }
        return kinds;
    }

    private static List<String> supportedModules() {
        return java.util.Arrays.stream(RecomputeModule.values()).filter(RecomputeModule::supported)
                .map(RecomputeModule::id).toList();
    }

    /** Every order of the four mesh dimensions, separated by dashes, commas or spaces. */
    private static String orderPattern() {
        List<String> perms = new ArrayList<>();
        permutations(new ArrayList<>(), perms);
        return "^(" + String.join("|", perms) + ")$";
    }

    private static void permutations(List<String> prefix, List<String> out) {
        if (prefix.size() == Mesh.Dim.values().length) {
            out.add(String.join("[-,\\s]+", prefix));
            return;
        }
        for (Mesh.Dim d : Mesh.Dim.values()) {
            String p = anyCase(d.id());
            if (!prefix.contains(p)) {
                prefix.add(p);
                permutations(prefix, out);
                prefix.remove(prefix.size() - 1);
            }
        }
    }

    /** A regular expression matching {@code word} in any case (JSON Schema patterns have no flags). */
    static String anyCase(String word) {
        StringBuilder sb = new StringBuilder();
        for (char c : word.toCharArray()) {
            char lo = Character.toLowerCase(c);
            char up = Character.toUpperCase(c);
            if (lo != up) {
                sb.append('[').append(lo).append(up).append(']');
            } else if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                sb.append(c);
            } else {
                sb.append('\\').append(c);
            }
        }
        return sb.toString();
    }
}

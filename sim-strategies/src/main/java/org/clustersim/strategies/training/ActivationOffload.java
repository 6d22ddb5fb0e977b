package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntToLongFunction;

import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.strategies.pipeline.StageWork;
import org.clustersim.topology.HostAttachment;

/**
 * CPU activation offload as Transformer Engine's {@code DefaultOffloadSynchronizer} runs it under
 * Megatron-core's {@code cpu_offloading} (transformer_engine/pytorch/cpu_offload.py at
 * NVIDIA/TransformerEngine d0067d0; megatron/core/transformer/transformer_block.py at
 * NVIDIA/Megatron-LM d98e8a6 passes {@code cpu_offloading_num_layers} and the block's layers).
 * Of a model chunk's L layers the first N are offloaded:
 * <ul>
 * <li>forward: layer i's saved tensors are copied to pinned host memory on one offload stream
 *     (the copy engines: no SMs) once layer i's forward has produced them (here: when its last
 *     task ends; TE starts each tensor's copy as soon as it is saved, a little earlier), and the
 *     compute stream waits for that copy before layer L - N + i's forward
 *     ({@code finish_offload_map}), where the GPU copy is released;</li>
 * <li>backward: before layer L - 1 - N + i's backward the reload of layer i is issued on the
 *     offload stream behind the compute stream's work so far ({@code start_reload_map},
 *     {@code offload_stream.wait_stream(current_stream)}), and layer i's backward waits for it.
 *     With N = L - 1 the reload starts just before its own layer's backward: fully exposed; each
 *     layer fewer offloaded gives one layer of prefetch.</li>
 * </ul>
 * Each copy takes the layer's activation bytes per GPU over the GPU's share of the host link
 * ({@link HostAttachment#bytesPerSPerGpu}); the HBM traffic a copy adds beside the kernels is not
 * modelled (a copy reads or writes HBM at the host link's rate, a few percent of HBM's).
 * Memory: with offload every layer's activations are counted layer by layer ({@link
 * StageWork.HostMove}): made when its forward starts, freed when its backward ends (PyTorch frees
 * a layer's saved tensors as its backward consumes them; without offload the step counts a
 * stage's activations whole, from its forward's start to its backward's end, which gives the
 * same peak for one microbatch but would hold the kept layers while offloaded ones come back);
 * an offloaded layer's are also gone from the GPU from the end of its copy out to the start of
 * its copy in.
 */
final class ActivationOffload {
    /** The stream the copies run on, one per GPU. */
    static final String STREAM = "offload";

    private final int layers;
    private final HostAttachment host;
    private final IntToLongFunction layerBytes;

    /**
     * @param layers     N, the layers offloaded from the start of each stage
     * @param host       the host link and memory
     * @param layerBytes activation bytes one microbatch leaves per GPU for a layer
     */
    ActivationOffload(int layers, HostAttachment host, IntToLongFunction layerBytes) {
        this.layers = layers;
        this.host = host;
        this.layerBytes = layerBytes;
    }

    /** Duration of one layer's copy in either direction. */
    long copyNs(int layer) {
        return (long) Math.ceil(layerBytes.applyAsLong(layer) / host.bytesPerSPerGpu() * 1e9);
    }

    /** The copies of one action of a stage of {@code stageLayers} layers. */
    Copies pass(Chain chain, Pass p, int stageLayers, String label) {
        return new Copies(chain, p, stageLayers, label);
    }

    /** One action's copies: called around each of its layers in the order it runs them. */
    final class Copies {
        private final Chain chain;
        private final Pass pass;
        private final int stageLayers;
        private final String label;
        private final int[] streams;
        private final int[] out;
        private final int[] in;
        private final List<StageWork.HostMove> moves = new ArrayList<>();

        private Copies(Chain chain, Pass pass, int stageLayers, String label) {
            this.chain = chain;
            this.pass = pass;
            this.stageLayers = stageLayers;
            this.label = label;
            int[] devices = chain.devices();
            this.streams = new int[devices.length];
            for (int i = 0; i < devices.length; i++) {
                streams[i] = chain.graph().stream(devices[i], STREAM, StreamKind.COMMUNICATION);
            }
            this.out = new int[layers];
            this.in = new int[layers];
        }

        /** Before the action's layer {@code k} (counted within the stage from 0) of the stage starting at {@code first}. */
        void before(int k, int first) {
            TaskGraph.Builder g = chain.graph();
            if (!pass.backward()) {
                int j = k - (stageLayers - layers);
                if (j >= 0) {
                    int copy = out[j];
                    chain.onNextTask(id -> g.addDependency(id, copy));
                }
                // the layer's saved tensors are made from its forward's start
                chain.onNextTask(id -> moves.add(new StageWork.HostMove(id, first + k, true)));
                return;
            }
            if (pass == Pass.W) {
                return;
            }
            int j = k - (stageLayers - 1 - layers);
            if (j >= 0 && j < layers) {
                int after = chain.last();
                int id = g.computeOn(label + " L" + (first + j) + " reload", chain.tag().atLayer(first + j).hostCopy(),
                        streams, copyNs(first + j), 0);
                if (after >= 0) {
                    g.addDependency(id, after);
                }
                in[j] = id;
                moves.add(new StageWork.HostMove(id, first + j, true));
            }
            if (k < layers) {
                int copy = in[k];
                chain.onNextTask(id -> g.addDependency(id, copy));
            }
        }

        /** After the action's layer {@code k}. */
        void after(int k, int first) {
            if (pass.backward()) {
                // freed once the layer's last use is over (its full backward, or its weight gradients)
                if (pass != Pass.BI) {
                    moves.add(new StageWork.HostMove(chain.last(), first + k, false));
                }
                return;
            }
            if (k >= layers) {
                return;
            }
            TaskGraph.Builder g = chain.graph();
            int id = g.computeOn(label + " L" + (first + k) + " offload", chain.tag().hostCopy(), streams,
                    copyNs(first + k), 0);
            g.addDependency(id, chain.last());
            out[k] = id;
            moves.add(new StageWork.HostMove(id, first + k, false));
        }

        List<StageWork.HostMove> moves() {
            return List.copyOf(moves);
        }
    }
}

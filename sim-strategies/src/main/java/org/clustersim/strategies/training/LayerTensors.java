package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.strategies.model.TransformerModel;

/**
 * The parameter tensors of one layer on one GPU, in forward order, as a Hugging Face style
 * decoder block holds them (what DeepSpeed hooks, submodule by submodule, and what FSDP2 casts
 * and copies, parameter by parameter): the input norm, the query, key, value and output
 * projections, the post-attention norm, the MLP's matrices. Latent attention counts as one
 * projection per matrix group it has (down, up); an MoE layer's experts as one tensor per MLP
 * matrix kind, its router as one more. Each tensor is a submodule of its own. Sizes are the
 * GPU's TP share and add up to {@link GpuParameters#layer}. With parallel blocks the one input
 * norm serves both branches: no post-attention norm.
 */
final class LayerTensors {
    /** A tensor: its submodule's name and its elements on one GPU. */
    record Tensor(String name, double numel) {
    }

    private LayerTensors() {
    }

    static List<Tensor> of(GpuParameters params, int l) {
        TransformerModel m = params.model();
        int tp = params.tp();
        double h = m.hidden();
        List<Tensor> out = new ArrayList<>();
        out.add(new Tensor("input_layernorm", h));
        if (m.latentAttention() == null) {
            out.add(new Tensor("q_proj", h * m.heads() * m.headDim() / tp));
            out.add(new Tensor("k_proj", h * m.kvHeads() * m.headDim() / tp));
            out.add(new Tensor("v_proj", h * m.kvHeads() * m.vHeadDim() / tp));
            out.add(new Tensor("o_proj", (double) m.attentionOutputWidth() * h / tp));
        } else {
            double down = m.attentionReplicatedParams();
            out.add(new Tensor("attn_down_proj", down));
            out.add(new Tensor("attn_up_proj", (m.attentionParams() - down - m.attentionOutputWidth() * h) / tp));
            out.add(new Tensor("o_proj", (double) m.attentionOutputWidth() * h / tp));
            out.add(new Tensor("latent_norms", m.layerNormParams() - 2 * h));
        }
        if (!m.parallelBlocks()) {
            out.add(new Tensor("post_attention_layernorm", h));
        }
        double so = 0;
        for (Tensor t : out) {
            so += t.numel();
        }
        int matrices = m.ffnKind().matrices();
        String[] names = matrices == 3 ? new String[] {"gate_proj", "up_proj", "down_proj"}
                : new String[] {"fc1", "fc2"};
        double mlp = params.layer(l) - so;
        if (m.isMoeLayer(l)) {
            double router = m.routerParams();
            out.add(new Tensor("router", router));
            mlp -= router;
        }
        for (String n : names) {
            out.add(new Tensor(n, mlp / matrices));
        }
        return out;
    }
}

package org.clustersim.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Tags as the graph keeps them: each distinct tag once, the category derived from the typed fields. */
class TaskTagTest {
    @Test
    void theCategoryIsTheTrafficsForCommunicationAndThePasssForCompute() {
        TaskTag f = TaskTag.of(TaskTag.Pass.FORWARD, 3, 1).atLayer(7);
        assertEquals("forward", f.category());
        assertEquals("backward-input", TaskTag.of(TaskTag.Pass.BACKWARD_INPUT, 0, 0).recomputed().category());
        assertEquals("tp-comm", f.carrying(TaskTag.Traffic.TENSOR).category());
        assertEquals("tp-comm", f.carrying(TaskTag.Traffic.TENSOR, TaskTag.Transport.RING_EXCHANGE).category());
        assertEquals("pp-p2p", f.carrying(TaskTag.Traffic.PIPELINE_SEND).category());
        assertEquals("dp-comm", TaskTag.of(TaskTag.Traffic.PARAM_GATHER).category());
        assertEquals("fsdp-copy", f.shardCopy().category());
        assertEquals("optimizer", TaskTag.of(TaskTag.Pass.OPTIMIZER, -1, -1).category());
        assertEquals("all-reduce", TaskTag.labelled("all-reduce").category());
        TaskTag sent = f.carrying(TaskTag.Traffic.PIPELINE_SEND);
        assertEquals(3, sent.microbatch());
        assertEquals(1, sent.chunk());
        assertEquals(7, sent.layer());
        assertEquals(TaskTag.Transport.LIBRARY, sent.transport());
        assertTrue(f.recomputed().recompute());
        assertNotEquals(f, f.recomputed());
    }

    @Test
    void identicalTagsAreKeptOnceAndReadBackAsOneInstance() {
        TaskGraph.Builder b = TaskGraph.builder();
        b.device("gpu0", 0);
        int c = b.stream(0, "compute", StreamKind.COMPUTE);
        for (int mb = 0; mb < 4; mb++) {
            for (int layer = 0; layer < 3; layer++) {
                // a new but equal tag object per task, as the step builders make them
                b.compute("F mb" + mb + " L" + layer, TaskTag.of(TaskTag.Pass.FORWARD, mb % 2, 0).atLayer(layer), c,
                        10, 0);
            }
        }
        b.compute("untyped", "misc", c, 1, 0);
        b.compute("untyped again", "misc", c, 1, 0);
        TaskGraph g = b.build();
        assertEquals(2 * 3 + 1, g.tagCount());
        assertSame(g.tag(0), g.tag(6), "microbatches 0 and 2 share their tag");
        assertEquals(1, g.tag(3).microbatch());
        assertEquals(2, g.tag(5).layer());
        assertEquals("forward", g.category(5));
        assertEquals("misc", g.category(13));
        assertSame(TaskTag.Pass.NONE, g.task(13).tag().pass());
    }

    @Test
    void aTagWithoutPassTrafficOrLabelIsRefused() {
        TaskGraph.Builder b = TaskGraph.builder();
        b.device("gpu0", 0);
        int c = b.stream(0, "compute", StreamKind.COMPUTE);
        assertThrows(IllegalArgumentException.class, () -> b.compute("nothing", TaskTag.NONE, c, 1, 0));
    }
}

package org.clustersim.strategies.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.clustersim.core.engine.Flow;
import org.clustersim.core.engine.Phase;
import org.junit.jupiter.api.Test;

class NodeLimitedAllToAllTest {
    @Test
    void aTokenCrossesTheNetworkOncePerChosenServer() {
        // 4 servers of 8 GPUs; top 8 experts on at most 2 servers
        long bytes = 64L << 20; // every token once per chosen expert
        List<Phase> limited = new NodeLimitedAllToAll(8, 2).plan(CollectiveOp.ALL_TO_ALL, PxnAlgorithmTest.GROUP,
                bytes, Protocol.SIMPLE, PxnAlgorithmTest.POD);
        List<Phase> pxn = new PxnAlgorithm().plan(CollectiveOp.ALL_TO_ALL, PxnAlgorithmTest.GROUP, bytes,
                Protocol.SIMPLE, PxnAlgorithmTest.POD);
        Map<Integer, Double> nic = PxnAlgorithmTest.nicBytes(limited);
        Map<Integer, Double> every = PxnAlgorithmTest.nicBytes(pxn);
        // each token (bytes / 8 per GPU) goes to 2 of the 4 servers: 3 other servers x 2/4 of the tokens
        for (int g = 0; g < 32; g++) {
            assertEquals(3 * (bytes / 8.0) * 2 / 4, nic.get(g), 0.001 * bytes, "gpu " + g);
            assertTrue(nic.get(g) < every.get(g) / 3, "a quarter of what every expert copy would put on the NIC");
        }
        // then every copy is spread over its server's GPUs over NVLink, on the rail first
        assertEquals(2, limited.size());
        for (Flow f : limited.get(0).flows()) {
            assertEquals(f.srcDevice() % 8, f.dstDevice() % 8);
        }
        for (Flow f : limited.get(1).flows()) {
            assertEquals(f.srcDevice() / 8, f.dstDevice() / 8);
        }
    }

    @Test
    void aLimitAboveTheServersOrTopKChangesNothing() {
        long bytes = 8L << 20;
        List<Phase> four = new NodeLimitedAllToAll(2, 4).plan(CollectiveOp.ALL_TO_ALL, PxnAlgorithmTest.GROUP, bytes,
                Protocol.SIMPLE, PxnAlgorithmTest.POD);
        List<Phase> two = new NodeLimitedAllToAll(2, 2).plan(CollectiveOp.ALL_TO_ALL, PxnAlgorithmTest.GROUP, bytes,
                Protocol.SIMPLE, PxnAlgorithmTest.POD);
        assertEquals(PxnAlgorithmTest.nicBytes(two), PxnAlgorithmTest.nicBytes(four),
                "top 2 reaches at most 2 servers whatever the limit");
    }
}

package org.clustersim.core.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class CommCallTest {
    private static Work.Communication ring(int a, int b, long bytes) {
        return new Work.Communication(List.of(new Phase(List.of(new Flow(a, b, bytes), new Flow(b, a, bytes)))));
    }

    @Test
    void aDescriptionLeavesTheCommunicationEqualToItsUndescribedSelf() {
        Work.Communication plain = ring(0, 1, 100);
        Work.Communication described = plain.as(new CommCall("allreduce", 200, new int[] {0, 1}));
        assertEquals(plain, described, "the simulation and plan sharing compare phases only");
        assertEquals(plain.hashCode(), described.hashCode());
        assertEquals(List.of(), plain.calls());
        assertEquals(List.of(new CommCall("allreduce", 200, new int[] {0, 1})), described.calls());
    }

    @Test
    void movedAndMergedCommunicationsCarryTheirCalls() {
        Work.Communication a = ring(0, 1, 100).as(new CommCall("allgather", 200, new int[] {0, 1}));
        Work.Communication b = ring(2, 3, 100).as(new CommCall("allgather", 200, new int[] {2, 3}));
        Work.Communication both = Work.Communication.concurrent(List.of(a, b));
        assertEquals(2, both.calls().size());
        assertArrayEquals(new int[] {2, 3}, both.calls().get(1).devices());
        Work.Communication moved = a.onDevices(d -> d + 4);
        assertArrayEquals(new int[] {4, 5}, moved.calls().get(0).devices());
        assertEquals(200, moved.calls().get(0).bytes());
    }

    @Test
    void aPointToPointTransferIsASendAndRingStepsAreSendsPerFlow() {
        CommCall send = Work.Communication.pointToPoint(3, 5, 64).calls().get(0);
        assertTrue(send.isSend());
        assertArrayEquals(new int[] {3, 5}, send.devices());
        assertEquals(64, send.bytes());
        assertEquals(List.of(CommCall.send(0, 1, 7), CommCall.send(1, 0, 7)), ring(0, 1, 7).asSends().calls());
        assertThrows(IllegalArgumentException.class, () -> new CommCall(CommCall.SEND, 1, new int[] {1, 2, 3}));
    }
}

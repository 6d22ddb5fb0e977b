package org.clustersim.study.scenario;

import java.util.List;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The shared-cluster format ({@link SharedScenarioReader}) as a JSON Schema (draft 2020-12), so
 * editors complete and check shared-cluster files as they do scenarios. Its sections are the
 * scenario's ({@link ScenarioSchema}, from the same {@link ScenarioFields}); what is the shared
 * format's own is written here: {@code cluster.nodes} required (a TPU cluster's {@code topology}),
 * the {@code jobs} list, a job's {@code slices} on TPU slices, a job's
 * {@code placement} (a policy, {@code {policy, seed}} or {@code {servers}}) and a job being either
 * a {@code scenario} file or its own {@code model} and {@code training} (never both). Rules
 * between fields (placements that overlap or miscount, a seed on a policy other than random,
 * layouts against servers) stay the reader's, as for scenarios.
 */
public final class SharedScenarioSchema {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** A job's own scenario sections. */
    private static final List<Field> JOB_SECTIONS = List.of(ScenarioFields.MODEL, ScenarioFields.PARALLELISM,
            ScenarioFields.SCHEDULE, ScenarioFields.TRAINING, ScenarioFields.SIMULATION);
    /** Server numbers and ranges as the reader parses them: {@code 0-31,64}. */
    private static final String SERVER_RANGES = "^\\s*[0-9]+(\\s*-\\s*[0-9]+)?(\\s*,\\s*[0-9]+(\\s*-\\s*[0-9]+)?)*\\s*$";

    private SharedScenarioSchema() {
    }

    /** The schema as a tree. */
    public static ObjectNode schema() {
        ObjectNode root = NODES.objectNode();
        root.put("$schema", ScenarioSchema.DIALECT);
        root.put("$id", "https://clustersim.org/shared-scenario.schema.json");
        root.put("title", "clustersim shared cluster");
        root.put("description", "Several training jobs on one cluster, simulated together on one timeline and one "
                + "fabric. See docs/scenario-format.md, Shared clusters.");
        root.put("type", "object");
        ObjectNode props = root.putObject("properties");
        props.set("name", ScenarioSchema.field(ScenarioFields.NAME));
        ObjectNode cluster = props.putObject("cluster");
        cluster.put("description", "The whole cluster, as a scenario's cluster section; nodes is required "
                + "(topology and slices for TPU presets).");
        ArrayNode all = cluster.putArray("allOf");
        all.add(ScenarioSchema.field(ScenarioFields.CLUSTER));
        // GPU servers are counted by nodes; TPU slices by topology and slices
        all.addObject().putArray("anyOf").add(present(List.of(ScenarioFields.NODES.name())))
                .add(present(List.of(ScenarioFields.TOPOLOGY.name())));
        for (Field f : List.of(ScenarioFields.NETWORK, ScenarioFields.FAULTS, ScenarioFields.OUTPUT)) {
            props.set(f.name(), ScenarioSchema.field(f));
        }
        ObjectNode simulation = props.putObject("simulation");
        simulation.put("description", "How the jobs are simulated together.");
        simulation.putArray("type").add("object").add("null");
        ObjectNode steps = simulation.putObject("properties").putObject("steps");
        steps.put("description", "auto: each job's step count raised until each job completes its own "
                + "simulation.steps steps while every job still runs.");
        steps.set("anyOf", ScenarioSchema.names(List.of("auto"), true));
        simulation.put("additionalProperties", false);
        ObjectNode jobs = props.putObject("jobs");
        jobs.put("description", "The jobs, each placed on servers of the cluster.");
        jobs.put("type", "array");
        jobs.put("minItems", 1);
        jobs.set("items", job());
        root.put("additionalProperties", false);
        root.putArray("allOf").add(present(List.of("cluster", "jobs")));
        return root;
    }

    /** The schema as indented JSON with a final newline (byte-identical from run to run). */
    public static String text() {
        return ScenarioSchema.indented(schema());
    }

    private static ObjectNode job() {
        ObjectNode job = NODES.objectNode();
        job.put("type", "object");
        ObjectNode props = job.putObject("properties");
        props.putObject("name").put("description", "Label in outputs and the trace's process name; default job<i>; "
                + "unique, without '/'.").put("type", "string").put("pattern", "^[^/]*[^/\\s][^/]*$");
        props.set("placement", placement());
        props.putObject(SharedScenarioReader.SLICES_KEY).put("description", "On a cluster of TPU slices: how many "
                + "whole slices the job takes (default 1); its layout's dcn_* degrees multiply to it.")
                .put("type", "integer").put("minimum", 1).put("maximum", 1 << 12);
        props.putObject("scenario").put("description", "Instead of the sections: a scenario file, relative to this "
                + "one, whose model, parallelism, schedule, training and simulation are the job's.")
                .put("type", "string").put("pattern", "\\S");
        for (Field f : JOB_SECTIONS) {
            props.set(f.name(), ScenarioSchema.field(f));
        }
        job.put("additionalProperties", false);
        ObjectNode byFile = present(List.of("scenario"));
        for (Field f : JOB_SECTIONS) {
            ((ObjectNode) byFile.get("properties")).put(f.name(), false);
        }
        ObjectNode own = present(List.of(ScenarioFields.MODEL.name(), ScenarioFields.TRAINING.name()));
        ((ObjectNode) own.get("properties")).put("scenario", false);
        job.putArray("allOf").add(present(List.of("placement"))).add(NODES.objectNode().set("anyOf",
                NODES.arrayNode().add(byFile).add(own)));
        return job;
    }

    private static ObjectNode placement() {
        ObjectNode p = NODES.objectNode();
        p.put("description", "A policy (packed, spread, random, first-fit), {policy: random, seed: 7}, or "
                + "{servers: \"0-31,64-95\"}.");
        List<String> policies = List.copyOf(new java.util.TreeMap<>(SharedScenarioReader.POLICIES).keySet());
        ArrayNode any = p.putArray("anyOf");
        any.addAll(ScenarioSchema.names(policies, false));
        ObjectNode policy = any.addObject();
        policy.put("type", "object");
        ObjectNode pp = policy.putObject("properties");
        pp.putObject("policy").set("anyOf", ScenarioSchema.names(policies, false));
        pp.putObject("seed").put("description", "Seed of the random policy.").put("type", "integer")
                .put("minimum", 0).put("maximum", Integer.MAX_VALUE);
        policy.put("additionalProperties", false);
        policy.putArray("required").add("policy");
        ObjectNode servers = any.addObject();
        servers.put("type", "object");
        ObjectNode range = NODES.objectNode();
        range.putArray("anyOf").add(NODES.objectNode().put("type", "integer").put("minimum", 0))
                .add(NODES.objectNode().put("type", "string").put("pattern", SERVER_RANGES));
        ObjectNode list = NODES.objectNode().put("type", "array").put("minItems", 1);
        list.set("items", range.deepCopy());
        ObjectNode sv = servers.putObject("properties").putObject("servers");
        sv.put("description", "Server numbers and ranges a-b, comma-separated, or a list of them.");
        sv.putArray("anyOf").add(range).add(list);
        servers.put("additionalProperties", false);
        servers.putArray("required").add("servers");
        return p;
    }

    /** {@code keys} given and not empty ({@code key:} or {@code null} counts as absent, as in the reader). */
    private static ObjectNode present(List<String> keys) {
        ObjectNode n = NODES.objectNode();
        ArrayNode req = n.putArray("required");
        ObjectNode notNull = n.putObject("properties");
        for (String key : keys) {
            req.add(key);
            notNull.putObject(key).putObject("not").put("type", "null");
        }
        return n;
    }
}

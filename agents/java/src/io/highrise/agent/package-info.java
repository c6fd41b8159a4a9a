/**
 * The highrise Java agent: streams method enter/exit events of a running JVM to the highrise
 * viewer (agent-protocol/SPEC.md). Start here: {@link io.highrise.agent.Agent} (premain and
 * agentmain), then {@link io.highrise.agent.Transformer} (the bytecode rewriting),
 * {@link io.highrise.agent.Recorder} and {@link io.highrise.agent.Ring} (the hot path) and
 * {@link io.highrise.agent.Sender} (the socket thread). See agents/java/README.md.
 */
package io.highrise.agent;

package org.troika.spark;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.troika.common.TroikaEnv;
import org.troika.common.UsageException;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.MpiFlavor;
import org.troika.launcher.spi.MpiInstall;
import org.troika.launcher.spi.BackendPlan;

class SparkLaunchPlannerTest {
    private static final HostLayout LAYOUT = HostLayout.of(Map.of(0, "spark-a", 1, "spark-b", 2, "spark-a", 3, "spark-b"));
    private static final Path AGENT = Path.of("/tmp/troika-spark-1/troika-rsh");
    private static final Map<String, String> AGENT_ENV = Map.of(TroikaEnv.DRIVER_ADDR, "127.0.0.1:4000",
            TroikaEnv.SECRET_FILE, "/tmp/troika-spark-1/troika-2/secret", TroikaEnv.LIVENESS_TIMEOUT_MS, "30000");
    private static final List<String> RANK = SparkLaunchPlanner.rankCommand("/jdk/bin/java", List.of("-Xmx1g"), "/app.jar",
            RankCds.Plan.off("test"));
    private static final List<String> RANK_TAIL = List.of("/bin/sh", "-c", "exec \"$@\"", "troika-spark-rank",
            "/jdk/bin/java", "-Xmx1g", "-cp", "/app.jar", "org.troika.spark.RankMain");

    private static BackendPlan plan(MpiInstall mpi, RunOptions o) {
        RunSettings s = SparkLaunchPlanner.settings(o, LAYOUT, 4, RANK);
        return SparkLaunchPlanner.plan(s, mpi, false, Map.of("PATH", "/bin", RankMain.SERVICE_ENV, "127.0.0.1:4001",
                TroikaEnv.SECRET_KEY, "c2VjcmV0c2VjcmV0c2VjcmV0"), AGENT, AGENT_ENV);
    }

    @Test
    void openMpiGetsTheRelayAgentTheHostHashesAndTheRankMain() {
        BackendPlan p = plan(new MpiInstall(MpiFlavor.OPEN_MPI, 4, ""), RunOptions.builder().np(4)
                .mpiArgs(List.of("--mca", "pml", "ob1")).build());
        List<String> argv = p.launch().argv();
        assertAll(
                () -> assertEquals(List.of("mpirun", "--mca", "plm_rsh_agent", AGENT.toString(), "--tag-output", "-np", "4",
                        "-H", "spark-a:2,spark-b:2", "--bind-to", "none", "--map-by", "slot"), argv.subList(0, 13)),
                () -> assertEquals(RANK_TAIL, argv.subList(argv.size() - RANK_TAIL.size(), argv.size())),
                () -> assertEquals(List.of("--mca", "pml", "ob1"), argv.subList(argv.size() - RANK_TAIL.size() - 3,
                        argv.size() - RANK_TAIL.size())),
                () -> assertTrue(Collections.indexOfSubList(argv, List.of("-x", RankMain.SERVICE_ENV)) > 0, argv::toString),
                () -> assertEquals(-1, Collections.indexOfSubList(argv, List.of("-x", TroikaEnv.SECRET_FILE))),
                () -> assertEquals(-1, Collections.indexOfSubList(argv, List.of("-x", TroikaEnv.DRIVER_ADDR))),
                () -> assertEquals("127.0.0.1:4000", p.launch().env().get(TroikaEnv.DRIVER_ADDR)),
                () -> assertFalse(p.launch().env().containsKey(TroikaEnv.SECRET_KEY)),
                () -> assertFalse(String.join(" ", argv).contains("c2VjcmV0")));
    }

    @Test
    void inLocalModeMpirunStartsTheRanksItselfWithoutAgentButTheRanksSeeTheHostHash() {
        HostLayout one = HostLayout.of(Map.of(0, "spark-a", 1, "spark-a", 2, "spark-a", 3, "spark-a"));
        RunSettings s = SparkLaunchPlanner.localSettings(RunOptions.builder().np(4).build(), 4, RANK);
        BackendPlan p = SparkLaunchPlanner.localPlan(s, new MpiInstall(MpiFlavor.OPEN_MPI, 4, ""), false,
                Map.of("PATH", "/bin", RankMain.SERVICE_ENV, "127.0.0.1:4001", RankMain.KEY_FILE_ENV, "/tmp/k/secret",
                        TroikaEnv.SECRET_KEY, "c2VjcmV0c2VjcmV0c2VjcmV0"), one);
        List<String> argv = p.launch().argv();
        assertAll(
                () -> assertEquals(List.of("mpirun", "--tag-output", "-np", "4", "-H", "localhost:4", "--bind-to", "none",
                        "--map-by", "slot"), argv.subList(0, 10)),
                () -> assertFalse(String.join(" ", argv).contains("plm_rsh_agent"), argv::toString),
                () -> assertEquals(RANK_TAIL, argv.subList(argv.size() - RANK_TAIL.size(), argv.size())),
                () -> assertEquals("spark-a:4", p.launch().env().get(TroikaEnv.HOSTS)),
                () -> assertEquals("4", p.launch().env().get(TroikaEnv.HOST_SLOTS)),
                () -> assertEquals("/tmp/k/secret", p.launch().env().get(RankMain.KEY_FILE_ENV)),
                () -> assertFalse(p.launch().env().containsKey(TroikaEnv.SECRET_KEY)),
                () -> assertFalse(String.join(" ", argv).contains("c2VjcmV0")));
        UsageException e = assertThrows(UsageException.class, () -> SparkLaunchPlanner.localPlan(s,
                new MpiInstall(MpiFlavor.MPICH, 4, ""), false, Map.of(), one));
        assertTrue(e.getMessage().contains("MPICH has none"), e.getMessage());
    }

    @Test
    void theRankJvmMapsTheArchiveOrRank0RecordsIt() {
        Path jsa = Path.of("/c/spark-1.jsa");
        List<String> mapping = SparkLaunchPlanner.rankCommand("/jdk/bin/java", List.of("-Xmx1g"), "/a.jar",
                new RankCds.Plan(jsa, null, ""));
        assertEquals(List.of("/bin/sh", "-c", "exec \"$@\"", "troika-spark-rank", "/jdk/bin/java",
                "-XX:SharedArchiveFile=/c/spark-1.jsa", "-Xshare:auto", "-Xlog:cds=off", "-Xlog:cds+dynamic=off",
                "-Xmx1g", "-cp", "/a.jar", "org.troika.spark.RankMain"), mapping);
        assertEquals(List.of("-Xlog:cds+dynamic=off", "-Djna.platform.library.path=/lib", "-Xmx1g"),
                SparkLaunchPlanner.rankCommand("/jdk/bin/java", List.of("-Xmx1g"), "/a.jar", new RankCds.Plan(jsa, null, ""),
                        List.of("-Djna.platform.library.path=/lib")).subList(8, 11), "troika's start-up options, then the user's");
        List<String> recording = SparkLaunchPlanner.rankCommand("/jdk/bin/java", List.of(), "/a.jar",
                new RankCds.Plan(jsa, Path.of("/c/spark-1.jsa.7.recording"), ""));
        assertEquals(List.of("/bin/sh", "-c", "if [ \"${OMPI_COMM_WORLD_RANK:-}\" = 0 ]; then j=$1; shift; exec \"$j\" "
                + "-XX:ArchiveClassesAtExit=/c/spark-1.jsa.7.recording \"$@\"; fi; exec \"$@\"", "troika-spark-rank",
                "/jdk/bin/java", "-Xlog:cds=off", "-Xlog:cds+dynamic=off", "-cp", "/a.jar", "org.troika.spark.RankMain"),
                recording);
    }

    @Test
    void openMpi5TakesTheAgentAsAPrrteParameter() {
        List<String> argv = plan(new MpiInstall(MpiFlavor.OPEN_MPI, 5, ""), RunOptions.defaults()).launch().argv();
        assertEquals(List.of("mpirun", "--prtemca", "plm_ssh_agent", AGENT.toString()), argv.subList(0, 4));
    }

    @Test
    void networkInterfacesAndTimestampsReachTheLauncherPlan() {
        List<String> argv = plan(new MpiInstall(MpiFlavor.OPEN_MPI, 4, ""), RunOptions.builder()
                .networkInterfaces(List.of("eth0")).prefixTimestamp(true).build()).launch().argv();
        assertAll(
                () -> assertTrue(Collections.indexOfSubList(argv, List.of("--mca", "btl_tcp_if_include", "eth0")) > 0),
                () -> assertTrue(argv.contains("--timestamp-output")));
    }

    @Test
    void hydraHasNoLaunchAgentSoItIsRefused() {
        UsageException e = assertThrows(UsageException.class,
                () -> plan(new MpiInstall(MpiFlavor.MPICH, 4, ""), RunOptions.defaults()));
        assertTrue(e.getMessage().contains("MPICH has none"), e.getMessage());
    }

    @Test
    void theAgentRunsWithTheLeanJvmOptionsOfBinTroikaRsh() throws Exception {
        String script = java.nio.file.Files.readString(java.nio.file.Path.of("..", "dist", "src", "bin", "troika-rsh"));
        assertTrue(script.contains(String.join(" ", SparkLaunchPlanner.AGENT_JVM_OPTIONS)),
                "bin/troika-rsh and the Spark agent start the same JVM: " + SparkLaunchPlanner.AGENT_JVM_OPTIONS);
        assertTrue(SparkLaunchPlanner.agentScript("/jdk/bin/java", "/c.jar")
                .contains(String.join(" ", SparkLaunchPlanner.AGENT_JVM_OPTIONS)));
    }

    @Test
    void theAgentScriptExecsTroikaRshWithQuotedWords() {
        String s = SparkLaunchPlanner.agentScript("/jdk/bin/java", "/a b/rsh.jar:/c.jar");
        assertTrue(s.startsWith("#!/bin/sh\nexec /jdk/bin/java ") && s.contains("'/a b/rsh.jar:/c.jar'")
                && s.endsWith(" org.troika.rsh.agent.RshMain \"$@\"\n"), s);
    }
}

package org.troika.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.troika.testkit.Requires;

/**
 * Cross-checks {@link Hostlist} against Slurm's own expander, {@code scontrol show hostnames} (no daemons needed).
 * Slurm 22.05 rejects text after a bracket group ({@code n[1-2].cluster}); troika accepts it (whether newer releases do is unverified).
 */
@Tag("integration")
class HostlistScontrolTest {
    @TempDir static Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"n[1-3]", "tux[0-2,12,20-21]", "node[001-003,010]", "node[08-11]", "n[9-11]", "a1,b2",
        "rack[1-2]-n[1-2]", "n[3,1]", "n1,n1", "gpu[01-02],login,c[7]"})
    void expandsLikeScontrol(String expr) throws Exception {
        Path scontrol = Requires.command("scontrol");
        Path conf = dir.resolve("slurm.conf");
        Files.writeString(conf, "ClusterName=x\nSlurmctldHost=localhost\nNodeName=localhost CPUs=1\n"
                + "PartitionName=p Nodes=ALL\n");
        Path out = dir.resolve("out.txt");
        ProcessBuilder pb = new ProcessBuilder(scontrol.toString(), "show", "hostnames", expr)
                .redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().put("SLURM_CONF", conf.toString());
        Process p = pb.start();
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                throw new AssertionError("scontrol did not finish");
            }
            assertEquals(0, p.exitValue(), Files.readString(out));
        } finally {
            p.destroyForcibly();
        }
        assertEquals(Files.readAllLines(out), Hostlist.expand(expr, "SLURM_JOB_NODELIST"));
    }
}

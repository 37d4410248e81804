# troika — build, test, demo and benchmark entry points (wrapping Maven).
MVN ?= mvn -B -q

.PHONY: all build dist setup setup-test test test-unit demo demo-spark demo-elastic bench clean

all: build

## make / make build: build the distribution dist/target/troika/{bin,lib}
build:
	$(MVN) install -DskipTests

## make dist: build, then the installable tarball dist/target/troika-VERSION.tar.gz (bin/, lib/, docs/, README,
## LICENSE, the example Java project); unpack it anywhere and put its bin/ on PATH
dist: build
	@ls dist/target/troika-*.tar.gz

## make setup: install Open MPI (+ JDK/Maven if missing) when root, else print what to install
setup:
	bash scripts/install-deps.sh

## make setup-test: also install what the tests need (MPICH, NetPIPE, sshd, Slurm, munge)
setup-test:
	bash scripts/install-deps.sh --test

## make test: every test, unit and integration (real mpirun, Slurm, network namespaces)
test:
	mvn -B -ntp install

## make test-unit: only tests that start no MPI job, daemon or namespace
test-unit:
	mvn -B -ntp install -Dtroika.test.excludedGroups=integration

## make demo: build, then run the demo job with 4 ranks on localhost
demo: build
	dist/target/troika/bin/troika-demo 4

## make demo-spark: the training example inside Spark executors (Spark local mode, 4 ranks)
demo-spark: build
	bash spark-support/demo-spark.sh

## make demo-elastic: ElasticTraining on three network-namespace hosts; discovery adds then drops a host while it
## trains (needs root)
demo-elastic: build
	bash scripts/demo-elastic.sh

## make bench: benchmarks (start-up overhead, flag costs, ...); prints ratios against baselines
bench: build
	@for b in bench/*.sh; do echo "== $$b"; bash "$$b" || exit 1; done

clean:
	$(MVN) clean

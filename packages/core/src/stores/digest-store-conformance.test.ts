import { describeDigestStoreConformance } from "#test/core/conformance/digest-store-conformance";
import { usePgliteRepository } from "#test/db/conformance/pglite-repository";
import { createInMemoryDigestStore } from "./in-memory-digest-store";

const storage = usePgliteRepository();

// One spec, both stores: the in-memory store must behave as the repository does.
const inMemory = createInMemoryDigestStore();
describeDigestStoreConformance("the in-memory store", () => inMemory);
describeDigestStoreConformance("the storage package's repository (PGlite)", () => storage.repository);

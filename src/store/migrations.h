// The results schema's migrations: kMigrations[i] takes a database from version i to i+1
// (Store::Migrate runs them, each in its own transaction); there are kStoreSchemaVersion of them
// (checked where they are defined).
#pragma once

namespace ream {

extern const char* const kMigrations[];

}  // namespace ream

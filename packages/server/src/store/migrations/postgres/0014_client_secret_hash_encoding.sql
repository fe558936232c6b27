-- Client secret hashes are SHA-256 in unpadded base64url (43 characters, auth/tokens.ts hashToken), as
-- the API stores them and the export document carries them. Imports before issue 30 stored the hash of
-- a random secret nobody was ever shown as 64 hex digits instead, which another instance's import then
-- refused. No secret can match such a hash, so any value no secret hashes to serves as well: a fresh
-- random one of 43 characters, as the SQLite migration does.
UPDATE "oidc_apps" SET "client_secret_hash" = substr(md5(random()::text) || md5(random()::text), 1, 43) WHERE length("client_secret_hash") = 64;

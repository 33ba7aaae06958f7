// Package deploy holds no code of billsnap and imports nothing of it: its
// heavy-tier test builds the repository's container image (the Dockerfile
// at the root) without any registry, over Debian base images made by
// debootstrap (deploy/base-images.sh, which .ci/run runs before the test),
// and runs billsnap demo in the image's file system. docs/operations.md
// describes the image.
package deploy

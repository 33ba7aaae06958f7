// Package deploy holds no code of billsnap: its heavy-tier test builds the
// repository's container image (the Dockerfile at the root) without any
// registry and runs the demo inside it.
package deploy

package config

import (
	"fmt"
	"os"
	"strings"
)

// APIKey reads the API key: from the file keyFile when given (or named by
// BILLSNAP_API_KEY_FILE), else from BILLSNAP_API_KEY. warn is told when the
// file can be read by other users. The error never contains the key.
func APIKey(getenv func(string) string, keyFile string, warn func(string)) (string, error) {
	if keyFile == "" {
		keyFile = getenv(EnvAPIKeyFile)
	}
	if keyFile == "" {
		if k := strings.TrimSpace(getenv(EnvAPIKey)); k != "" {
			return k, nil
		}
		return "", fmt.Errorf("no API key: set %s or use --api-key-file", EnvAPIKey)
	}
	st, err := os.Stat(keyFile)
	if err != nil {
		return "", fmt.Errorf("--api-key-file: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		warn(fmt.Sprintf("the API key file %s can be read by other users (mode %04o); chmod 600 it", keyFile, st.Mode().Perm()))
	}
	b, err := os.ReadFile(keyFile)
	if err != nil {
		return "", fmt.Errorf("--api-key-file: %w", err)
	}
	k := strings.TrimSpace(string(b))
	if k == "" {
		return "", fmt.Errorf("--api-key-file: %s is empty", keyFile)
	}
	return k, nil
}
